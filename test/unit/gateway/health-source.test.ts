import { describe, expect, it } from 'vitest'
import { Svc } from '../../../src/app.js'
import { buildGateway } from '../../../gateway/build.js'
import { GatewayRuntime } from '../../../gateway/runtime.js'

describe('readyz reads the state the gateway gives it', () => {
  it('an app no gateway serves is ready with no sidecar to probe', async () => {
    const app = new Svc({ log_level: 'fatal' })
    const res = await app.api.inject('/readyz')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ status: 'ready', ui: 'not_configured' })
    await app.api.close()
  })

  it('follows the gateway runtime (drain, upstream) without writing onto the app object', async () => {
    const app = new Svc({ log_level: 'fatal' })
    const keys = Reflect.ownKeys(app)
    const runtime = new GatewayRuntime('')
    const gateway = await buildGateway(app, { runtime })
    expect(Reflect.ownKeys(app)).toEqual(keys)
    expect((await app.api.inject('/readyz')).json()).toEqual({ status: 'ready', ui: 'not_configured' })
    runtime.draining = true
    const draining = await app.api.inject('/readyz')
    expect(draining.statusCode).toBe(503)
    expect(draining.json()).toEqual({ status: 'not_ready', detail: 'draining' })
    await gateway.destroy()
  })

  it('normalises the upstream it is given', () => {
    const runtime = new GatewayRuntime(' http://127.0.0.1:9000// ')
    expect(runtime.uiUpstream).toBe('http://127.0.0.1:9000')
    runtime.uiUpstream = 'http://127.0.0.1:9001/'
    expect(runtime.uiUpstream).toBe('http://127.0.0.1:9001')
  })
})
