import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { memoryChannelPair } from '../../../ipc/memory-channel.js'
import { GatewayToSupervisor, SupervisorToGateway } from '../../../ipc/messages.js'
import { WorkerHandle, type WorkerProcess } from '../../../supervisor/worker.js'

/**
 * WorkerHandle keeps the one close contract (src/internal/lifecycle.ts) over a worker process
 * faked on the in-memory IPC channel (the real process is covered by the supervisor's
 * integration tests): a worker that never answers its drain.
 */
const logger = pino({ level: 'silent' })

function worker(): { handle: WorkerHandle; drains: SupervisorToGateway[]; kills: () => number } {
  const [supervisorSide, workerSide] = memoryChannelPair({ a: GatewayToSupervisor, b: SupervisorToGateway }, logger)
  const drains: SupervisorToGateway[] = []
  workerSide.onMessage((msg) => {
    if (msg.type === 'drain') drains.push(msg)
  })
  const exits: ((code: number | null, signal: NodeJS.Signals | null) => void)[] = []
  let kills = 0
  const proc: WorkerProcess = {
    pid: 4242,
    channel: supervisorSide,
    onExit: (listener) => exits.push(listener),
    onClose: () => {},
    kill: async () => {
      kills++
      setImmediate(() => exits.splice(0).forEach((exit) => exit(null, 'SIGKILL')))
    },
  }
  const handle = new WorkerHandle(proc, { loadTimeoutMs: 60_000, shutdownGraceMs: 30_000 })
  return { handle, drains, kills: () => kills }
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((r) => setImmediate(r))
  }
}

describe('WorkerHandle keeps the close contract', () => {
  it('close() is one promise, a shutdown drain within shutdown_grace_s; destroy cuts it short', async () => {
    const w = worker()
    const closing = w.handle.close()
    expect(w.handle.close()).toBe(closing)
    await until(() => w.drains.length === 1)
    expect(w.drains[0]).toMatchObject({ type: 'drain', grace_ms: 30_000, reason: 'shutdown' })
    const destroying = w.handle.destroy()
    expect(w.handle.destroy()).toBe(destroying)
    await destroying
    await closing
    expect(w.kills()).toBe(1)
    expect(w.handle.phase).toBe('exited')
  })

  it('drainWithin is the same promise as close(); a second one while draining goes to the worker', async () => {
    const w = worker()
    const closing = w.handle.drainWithin(20_000, 'reload', 60_000)
    expect(w.handle.close()).toBe(closing)
    await until(() => w.drains.length === 1)
    expect(w.drains[0]).toMatchObject({ grace_ms: 20_000, reason: 'reload', ws_grace_ms: 60_000 })
    expect(w.handle.drainWithin(5_000, 'shutdown')).toBe(closing)
    await until(() => w.drains.length === 2)
    expect(w.drains[1]).toMatchObject({ grace_ms: 5_000, reason: 'shutdown' })
    await w.handle.destroy()
    await closing
  })
})
