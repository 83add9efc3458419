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
  /** `keepOpen`: a sent socket stays open here too (node closes it once it reached the other side). */
  send(message: Out, handle?: Server | Socket | object, options?: { keepOpen?: boolean }): boolean
  onMessage(listener: (message: In, handle: unknown) => void): void
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
      if (!ep.connected || typeof ep.send !== 'function') return false
      try {
        return ep.send(message as object, handle as Server, options, (err) => {
          if (err && !isClosedError(err)) logger.warn({ err, peer }, `IPC send to ${peer} failed`)
        })
      } catch (err) {
        if (isClosedError(err)) return false
        throw err
      }
    },
    onMessage(listener) {
      ep.on('message', (raw: unknown, handle: unknown) => {
        const parsed = schemas.incoming.safeParse(raw)
        if (!parsed.success) {
          logger.warn(
            { code: 'SVC_ERR_IPC_BAD_MESSAGE', peer, issues: parsed.error.issues.slice(0, 3).map((i) => i.message) },
            `dropped a malformed IPC message from ${peer}`,
          )
          return
        }
        listener(parsed.data, handle)
      })
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
