import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { Svc } from '../../../src/app.js'
import { buildGateway } from '../../../gateway/build.js'
import { GatewayRuntime } from '../../../gateway/runtime.js'
import { HttpProxy } from '../../../gateway/http-proxy.js'
import { WsProxy } from '../../../gateway/ws-proxy.js'
import { GatewayServer } from '../../../gateway/server.js'

const logger = pino({ level: 'silent' })

const parts: Record<string, () => Promise<{ part: { destroy(): Promise<void> }; close: () => Promise<void> }>> = {
  HttpProxy: async () => {
    const part = new HttpProxy('http://127.0.0.1:9', {
      maxBodyBytes: 1024,
      bufferDiskBytes: 0,
      connectTimeoutMs: 1_000,
      readTimeoutMs: 1_000,
      poolSize: 2,
      queueTimeoutMs: 0,
      bodyTimeoutMs: 1_000,
      logger,
      onQueueTimeout: () => {},
    })
    return { part, close: () => part.close() }
  },
  WsProxy: async () => {
    const part = new WsProxy({ connectTimeoutMs: 1_000, maxMessageBytes: 1024, logger })
    return { part, close: () => part.close() }
  },
  GatewayServer: async () => {
    const part = new GatewayServer(
      { handleRequest: (_q, s) => s.end(), handleContinue: (_q, s) => s.end(), handleUpgrade: (_q, socket) => socket.destroy() },
      { headerTimeoutMs: 1_000, keepAliveTimeoutMs: 1_000, maxConnections: 10 },
    )
    await part.listen({ port: 0, host: '127.0.0.1' })
    return { part, close: () => part.close() }
  },
  Gateway: async () => {
    const part = await buildGateway(new Svc({ log_level: 'fatal' }), { runtime: new GatewayRuntime('') })
    return { part, close: () => part.close() }
  },
}

describe.each(Object.keys(parts))('%s keeps the lifecycle contract', (name) => {
  it('close() twice returns the same promise; destroy() after close() is safe', async () => {
    const { part, close } = await parts[name]!()
    const first = close()
    expect(close()).toBe(first)
    await first
    const destroyed = part.destroy()
    expect(part.destroy()).toBe(destroyed)
    await destroyed
  })

  it('destroy() twice returns the same promise; close() after destroy() resolves', async () => {
    const { part, close } = await parts[name]!()
    const destroyed = part.destroy()
    expect(part.destroy()).toBe(destroyed)
    await destroyed
    await close()
  })
})
