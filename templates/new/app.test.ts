import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SvcTestClient } from 'svc/testing'
import { app } from './app.js'

// The same gateway `svc run` serves, in-process: no port, no child process.
const client = new SvcTestClient(app)
afterAll(() => client.close())

describe('the API', () => {
  it('says hello', async () => {
    const res = await client.apiGet('/hello', { query: { name: 'Ada' } })
    expect(res.status).toBe(200)
    expect(res.json()).toEqual({ message: 'Hello, Ada!' })
    expect(res.headers['x-request-id']).toBeTruthy()
  })

  it('answers unknown routes with a JSON 404', async () => {
    const res = await client.apiGet('/nope')
    expect(res.status).toBe(404)
  })
})

describe('the page', () => {
  // A page calls the API over HTTP at SVC_INTERNAL_API_BASE, which `svc run` sets. Here the
  // test serves the API on a free loopback port for it; `client.close()` stops it.
  beforeAll(async () => {
    process.env.SVC_INTERNAL_API_BASE = await app.api.listen({ host: '127.0.0.1', port: 0 })
  })

  it('greets through the API, and again when the name changes', async () => {
    const at = await client.ui({ target: '/' }).run()
    expect(at.exception).toEqual([])
    expect(at.success[0]!.value).toContain('Hello, world!')

    at.textInput('Your name').setValue('Ada')
    await at.run()
    expect(at.success[0]!.value).toContain('Hello, Ada!')
  })
})
