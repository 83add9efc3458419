import { EventEmitter } from 'node:events'
import type { z } from 'zod'
import type { Logger } from 'pino'
import { processChannel, type Channel } from './channel.js'

/**
 * Two linked in-memory IPC endpoints wrapped by `processChannel`, so actors can be driven in one
 * process with the very validation, closed-channel and disconnect behaviour of the real one.
 * Delivery is asynchronous (a later macrotask) and messages are copied through JSON, as node's
 * default IPC serialisation does; handles are passed as they are.
 */
class MemoryEndpoint extends EventEmitter {
  connected = true
  peer: MemoryEndpoint | null = null

  send(message: unknown, handle?: unknown, _options?: unknown, callback?: (err: Error | null) => void): boolean {
    const peer = this.peer
    if (!this.connected || !peer) {
      const err = Object.assign(new Error('Channel closed'), { code: 'ERR_IPC_CHANNEL_CLOSED' })
      if (callback) setImmediate(() => callback(err))
      return false
    }
    const copy: unknown = JSON.parse(JSON.stringify(message))
    setImmediate(() => {
      if (peer.connected) peer.emit('message', copy, handle)
      callback?.(null)
    })
    return true
  }

  disconnect(): void {
    for (const ep of [this, this.peer]) {
      if (!ep?.connected) continue
      ep.connected = false
      setImmediate(() => ep.emit('disconnect'))
    }
  }
}

/** `[a, b]`: what `a` sends, `b` receives, and back; `disconnect()` on either ends both. */
export function memoryChannelPair<AIn, AOut>(
  schemas: { a: z.ZodType<AIn>; b: z.ZodType<AOut> },
  logger: Logger,
  names: { a: string; b: string } = { a: 'a', b: 'b' },
): [Channel<AIn, AOut>, Channel<AOut, AIn>] {
  const epA = new MemoryEndpoint()
  const epB = new MemoryEndpoint()
  epA.peer = epB
  epB.peer = epA
  return [
    processChannel<AIn, AOut>(epA as never, { incoming: schemas.a, outgoing: schemas.b }, logger, names.b),
    processChannel<AOut, AIn>(epB as never, { incoming: schemas.b, outgoing: schemas.a }, logger, names.a),
  ]
}
