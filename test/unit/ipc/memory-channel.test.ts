import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { memoryChannelPair } from '../../../ipc/memory-channel.js'
import { GatewayToSupervisor, SupervisorToGateway } from '../../../ipc/messages.js'
import { isSvcError } from '../../../src/errors.js'

const logger = pino({ level: 'silent' })
/** The supervisor's end receives what gateways send, and the other way round. */
const pair = () => memoryChannelPair({ a: GatewayToSupervisor, b: SupervisorToGateway }, logger, { a: 'supervisor', b: 'worker' })

function next<T>(ch: { onMessage(l: (m: T, h: unknown) => void): void }): Promise<{ message: T; handle: unknown }> {
  return new Promise((resolve) => ch.onMessage((message, handle) => resolve({ message, handle })))
}

describe('in-memory channel pair', () => {
  it('delivers in both directions, asynchronously, as a copy, with the handle', async () => {
    const [supervisor, worker] = pair()
    const atWorker = next(worker)
    const handle = { fake: 'socket' }
    const sent = { svc: 1 as const, type: 'drain' as const, grace_ms: 100, reason: 'shutdown' as const }
    let delivered = false
    void atWorker.then(() => (delivered = true))
    expect(supervisor.send(sent, handle)).toBe(true)
    await Promise.resolve()
    expect(delivered).toBe(false)
    const got = await atWorker
    expect(got.message).toEqual(sent)
    expect(got.message).not.toBe(sent)
    expect(got.handle).toBe(handle)
    const atSupervisor = next(supervisor)
    worker.send({ svc: 1, type: 'ready', pid: 7 })
    expect((await atSupervisor).message).toEqual({ svc: 1, type: 'ready', pid: 7 })
  })

  it('refuses an invalid outgoing message as the process channel does', () => {
    const [supervisor] = pair()
    let caught: unknown
    try {
      supervisor.send({ svc: 1, type: 'nonsense' } as never)
    } catch (err) {
      caught = err
    }
    expect(isSvcError(caught) && caught.code).toBe('SVC_ERR_IPC_BAD_MESSAGE')
  })

  it('disconnect() on one side ends both: listeners hear it, sends return false', async () => {
    const [supervisor, worker] = pair()
    const heard = new Promise<void>((resolve) => worker.onDisconnect(resolve))
    const heardToo = new Promise<void>((resolve) => supervisor.onDisconnect(resolve))
    supervisor.disconnect()
    await Promise.all([heard, heardToo])
    expect(worker.connected).toBe(false)
    expect(supervisor.connected).toBe(false)
    expect(worker.send({ svc: 1, type: 'ready', pid: 1 })).toBe(false)
  })
})
