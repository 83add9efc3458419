import { afterAll, describe, expect, it } from 'vitest'
import { SvcTestClient } from 'svc/testing'
import { app, hello } from './app.js'

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

  it('answers a typed call, and refuses a request its schema does not allow', async () => {
    expect(await client.call(hello, { query: { name: 'Grace' } })).toEqual({ message: 'Hello, Grace!' })
    const res = await client.apiGet('/hello', { query: { name: '' } })
    expect(res.status).toBe(400)
    expect(res.json()).toMatchObject({ error: 'bad_request', issues: [{ in: 'querystring', path: ['name'] }] })
  })

  it('answers unknown routes with a JSON 404', async () => {
    const res = await client.apiGet('/nope')
    expect(res.status).toBe(404)
  })
})

describe('the page', () => {
  // A page run by client.ui() calls the API through this same in-process gateway.
  it('greets through the API, and again when the name changes', async () => {
    const at = await client.ui({ target: '/' }).run()
    expect(at.exception).toEqual([])
    expect(at.success[0]!.value).toContain('Hello, world!')

    at.textInput('Your name').setValue('Ada')
    await at.run()
    expect(at.success[0]!.value).toContain('Hello, Ada!')
  })
})
