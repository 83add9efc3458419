import type { ChildProcess } from 'node:child_process'
import type { Server, Socket } from 'node:net'
import type { z } from 'zod'
import type { Logger } from 'pino'
import { SvcError } from '../src/errors.js'

/**
 * A typed, validated message channel over node IPC. Both directions go through zod: a bad
 * incoming message is logged (SVC_ERR_IPC_BAD_MESSAGE) and dropped; a bad outgoing one is a bug.
 * EPIPE and ERR_IPC_CHANNEL_CLOSED (the other side is gone) are handled here, once.
 */
export interface Channel<In, Out> {
  /**
   * `keepOpen`: a sent socket stays open here too (node closes it once it reached the other side).
   * `sent`: called once the message is written, or could not be (the other side is gone).
   */
  send(message: Out, handle?: Server | Socket | object, options?: { keepOpen?: boolean; sent?: () => void }): boolean
  /** Listen for valid messages; returns the way to stop listening. */
  onMessage(listener: (message: In, handle: unknown) => void): () => void
  onDisconnect(listener: () => void): void
  readonly connected: boolean
  disconnect(): void
}

type IpcEndpoint = Pick<NodeJS.Process, 'send' | 'on' | 'connected' | 'disconnect'> | ChildProcess

export function processChannel<In, Out>(
  endpoint: IpcEndpoint,
  schemas: { incoming: z.ZodType<In>; outgoing: z.ZodType<Out> },
  logger: Logger,
  peer: string,
): Channel<In, Out> {
  const ep = endpoint as ChildProcess
  return {
    send(message, handle, options) {
      const checked = schemas.outgoing.safeParse(message)
      if (!checked.success) {
        throw new SvcError('SVC_ERR_IPC_BAD_MESSAGE', `bug: invalid IPC message to ${peer}: ${checked.error.message}`)
      }
      const sent = options?.sent ?? (() => {})
      if (!ep.connected || typeof ep.send !== 'function') {
        sent()
        return false
      }
      try {
        return ep.send(message as object, handle as Server, options?.keepOpen ? { keepOpen: true } : undefined, (err) => {
          if (err && !isClosedError(err)) logger.warn({ err, peer }, `IPC send to ${peer} failed`)
          sent()
        })
      } catch (err) {
        sent()
        if (isClosedError(err)) return false
        throw err
      }
    },
    onMessage(listener) {
      const onRaw = (raw: unknown, handle: unknown): void => {
        const parsed = schemas.incoming.safeParse(raw)
        if (!parsed.success) {
          logger.warn(
            { code: 'SVC_ERR_IPC_BAD_MESSAGE', peer, issues: parsed.error.issues.slice(0, 3).map((i) => i.message) },
            `dropped a malformed IPC message from ${peer}`,
          )
          return
        }
        listener(parsed.data, handle)
      }
      ep.on('message', onRaw)
      return () => void ep.off('message', onRaw)
    },
    onDisconnect(listener) {
      ep.on('disconnect', listener)
    },
    get connected() {
      return ep.connected === true
    },
    disconnect() {
      if (ep.connected) ep.disconnect()
    },
  }
}

function isClosedError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code
  return code === 'EPIPE' || code === 'ERR_IPC_CHANNEL_CLOSED' || code === 'ECONNRESET'
}
