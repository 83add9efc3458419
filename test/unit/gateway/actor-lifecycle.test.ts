import { request } from 'node:http'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { GatewayActor } from '../../../gateway/actor.js'
import type { Channel } from '../../../ipc/channel.js'
import { memoryChannelPair } from '../../../ipc/memory-channel.js'
import { GatewayToSupervisor, SupervisorToGateway } from '../../../ipc/messages.js'
import { bindPublicPort } from '../../../supervisor/bind.js'

/**
 * GatewayActor keeps the lifecycle contract (src/internal/lifecycle.ts): a real app and gateway on
 * a loopback port, the supervisor's side of the IPC an in-memory channel.
 */
const logger = pino({ level: 'silent' })
const actors: GatewayActor[] = []
afterEach(async () => {
  await Promise.all(actors.splice(0).map((a) => a.destroy()))
})

interface Started {
  actor: GatewayActor
  supervisor: Channel<GatewayToSupervisor, SupervisorToGateway>
  received: GatewayToSupervisor[]
  exits: number[]
  port: number
}

async function startActor(): Promise<Started> {
  const [supervisor, worker] = memoryChannelPair({ a: GatewayToSupervisor, b: SupervisorToGateway }, logger, { a: 'supervisor', b: 'worker' })
  const received: GatewayToSupervisor[] = []
  const exits: number[] = []
  let onReady!: () => void
  const ready = new Promise<void>((resolve) => (onReady = resolve))
  supervisor.onMessage((msg) => {
    received.push(msg)
    if (msg.type === 'ready') onReady()
  })
  const actor = new GatewayActor({ target: 'test/fixtures/app-in-process.ts:app', uiUpstream: 'http://127.0.0.1:9', workerId: '0', logger, shutdownGraceMs: 1_000, channel: worker, exit: (code) => exits.push(code) })
  actors.push(actor)
  const bound = await bindPublicPort('127.0.0.1', 0)
  await actor.start()
  expect(actor.state).toBe('loaded')
  supervisor.send({ svc: 1, type: 'listen' }, bound.handle)
  await ready
  return { actor, supervisor, received, exits, port: bound.port }
}

/** A request the app answers only after `ms`; resolves with its status, or the error that cut it. */
function slowRequest(port: number, ms: number): { arrived: Promise<void>; done: Promise<number | string> } {
  let onArrived!: () => void
  const arrived = new Promise<void>((resolve) => (onArrived = resolve))
  const done = new Promise<number | string>((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: `/api/slow?ms=${ms}` }, (res) => {
      res.resume()
      res.once('end', () => resolve(res.statusCode ?? 0))
      res.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message))
    })
    req.once('socket', (socket) => socket.once('connect', () => setImmediate(onArrived)))
    req.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message))
    req.end()
  })
  return { arrived, done }
}

describe('GatewayActor keeps the lifecycle contract', () => {
  it('close() drains, reports drained and exits 0; the same promise on repeat; destroy() after it is safe', async () => {
    const s = await startActor()
    const closed = s.actor.close()
    expect(s.actor.close()).toBe(closed)
    await closed
    expect(s.actor.state).toBe('stopped')
    expect(s.exits).toEqual([0])
    await s.actor.destroy()
    expect(s.exits).toEqual([0])
    await new Promise((resolve) => setImmediate(resolve))
    expect(s.received.map((m) => m.type)).toEqual(['loaded', 'ready', 'drained'])
  })

  it('destroy() stops now and exits 1 without reporting drained; the same promise on repeat; close() after it is the same', async () => {
    const s = await startActor()
    const destroyed = s.actor.destroy()
    expect(s.actor.destroy()).toBe(destroyed)
    expect(s.actor.close()).toBe(destroyed)
    await destroyed
    expect(s.actor.state).toBe('stopped')
    expect(s.exits).toEqual([1])
    await new Promise((resolve) => setImmediate(resolve))
    expect(s.received.map((m) => m.type)).toEqual(['loaded', 'ready'])
  })

  it('destroy() cuts a close() that waits for a slow request short: the request is cut, one exit (1)', async () => {
    const s = await startActor()
    const slow = slowRequest(s.port, 20_000)
    await slow.arrived
    const closed = s.actor.drainWithin(20_000)
    const t0 = Date.now()
    await s.actor.destroy()
    await closed
    expect(Date.now() - t0).toBeLessThan(2_000)
    expect(await slow.done).toBe('ECONNRESET')
    expect(s.exits).toEqual([1])
    expect(s.received.some((m) => m.type === 'drained')).toBe(false)
  })

  it('a stop while the app loads: nothing is announced, the gateway never serves', async () => {
    const [supervisor, worker] = memoryChannelPair({ a: GatewayToSupervisor, b: SupervisorToGateway }, logger)
    const received: string[] = []
    supervisor.onMessage((msg) => received.push(msg.type))
    const exits: number[] = []
    const actor = new GatewayActor({ target: 'test/fixtures/app-in-process.ts:app', uiUpstream: 'http://127.0.0.1:9', workerId: '0', logger, shutdownGraceMs: 1_000, channel: worker, exit: (code) => exits.push(code) })
    const started = actor.start()
    await actor.destroy()
    await started
    expect(actor.state).toBe('stopped')
    expect(exits).toEqual([1])
    await new Promise((resolve) => setImmediate(resolve))
    expect(received).toEqual([])
  })
})
