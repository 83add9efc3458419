import { describe, expect, it, vi } from 'vitest'
import { EventEmitter } from 'node:events'
import { processChannel } from '../../../ipc/channel.js'
import { GatewayToSupervisor, SupervisorToGateway } from '../../../ipc/messages.js'

/** A stand-in for a ChildProcess: records sends, lets the test deliver messages. */
function fakeEndpoint() {
  const ee = new EventEmitter() as EventEmitter & { connected: boolean; send: (...a: unknown[]) => boolean; disconnect: () => void }
  const sent: unknown[] = []
  ee.connected = true
  ee.send = (msg: unknown) => {
    sent.push(msg)
    return true
  }
  ee.disconnect = () => {
    ee.connected = false
    ee.emit('disconnect')
  }
  return { ee, sent }
}

function fakeLogger() {
  return { warn: vi.fn(), info: vi.fn(), error: vi.fn(), debug: vi.fn() }
}

describe('ipc channel', () => {
  it('delivers valid messages, typed', () => {
    const { ee } = fakeEndpoint()
    const logger = fakeLogger()
    const ch = processChannel(ee as never, { incoming: GatewayToSupervisor, outgoing: SupervisorToGateway }, logger as never, 'worker')
    const got: unknown[] = []
    ch.onMessage((m) => got.push(m))
    ee.emit('message', { svc: 1, type: 'ready', pid: 42 })
    expect(got).toEqual([{ svc: 1, type: 'ready', pid: 42 }])
    expect(logger.warn).not.toHaveBeenCalled()
  })

  it.each([
    ['no brand', { type: 'ready', pid: 1 }],
    ['wrong version', { svc: 2, type: 'ready', pid: 1 }],
    ['unknown type', { svc: 1, type: 'explode' }],
    ['bad field', { svc: 1, type: 'ready', pid: 'x' }],
    ['not an object', 'ready'],
  ])('logs and drops a malformed message (%s) without throwing', (_name, raw) => {
    const { ee } = fakeEndpoint()
    const logger = fakeLogger()
    const ch = processChannel(ee as never, { incoming: GatewayToSupervisor, outgoing: SupervisorToGateway }, logger as never, 'worker')
    const got: unknown[] = []
    ch.onMessage((m) => got.push(m))
    expect(() => ee.emit('message', raw)).not.toThrow()
    expect(got).toEqual([])
    expect(logger.warn).toHaveBeenCalledWith(expect.objectContaining({ code: 'SVC_ERR_IPC_BAD_MESSAGE', peer: 'worker' }), expect.any(String))
  })

  it('validates outgoing messages too (a bad one is a bug, thrown at the sender)', () => {
    const { ee, sent } = fakeEndpoint()
    const ch = processChannel(ee as never, { incoming: GatewayToSupervisor, outgoing: SupervisorToGateway }, fakeLogger() as never, 'worker')
    expect(ch.send({ svc: 1, type: 'drain', grace_ms: 10, reason: 'shutdown' })).toBe(true)
    expect(() => ch.send({ svc: 1, type: 'drain', grace_ms: -1, reason: 'shutdown' })).toThrow(/bug: invalid IPC message/)
    expect(sent).toHaveLength(1)
  })

  it('reports a closed channel instead of throwing', () => {
    const { ee } = fakeEndpoint()
    const ch = processChannel(ee as never, { incoming: GatewayToSupervisor, outgoing: SupervisorToGateway }, fakeLogger() as never, 'worker')
    let disconnected = false
    ch.onDisconnect(() => (disconnected = true))
    ch.disconnect()
    expect(disconnected).toBe(true)
    expect(ch.connected).toBe(false)
    expect(ch.send({ svc: 1, type: 'listen' })).toBe(false)
  })
})
