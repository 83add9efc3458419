import type { WireServerMessage } from '../wire/protocol.js'
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js'

/** `connected` is set by the runtime once the server answers `hello` with a session. */
export type ConnectionStatus = 'connecting' | 'connected' | 'reconnecting'

export interface ConnectionHandlers {
  /** The socket is open: send `hello` now. */
  onOpen(): void
  onMessage(message: WireServerMessage): void
  /** The socket is down and a (re)connect is pending. */
  onStatus(status: Exclude<ConnectionStatus, 'connected'>): void
  /** The socket closed with `code` (before the reconnect is scheduled). */
  onClose?(code: number): void
}

/** A socket that never opens within this time is treated as failed and retried. */
const CONNECT_TIMEOUT_MS = 10_000

/**
 * The page stream: one WebSocket, reopened after every close with jittered exponential
 * back-off (the session id in `hello` makes the server resume the same session).
 */
export class Connection {
  readonly #url: string
  readonly #handlers: ConnectionHandlers
  readonly #backoff: BackoffOptions
  #socket: WebSocket | null = null
  #attempt = 0
  #retryTimer: ReturnType<typeof setTimeout> | null = null
  #connectTimer: ReturnType<typeof setTimeout> | null = null
  #stopped = false
  #everOpened = false

  constructor(url: string, handlers: ConnectionHandlers, backoff: BackoffOptions = DEFAULT_BACKOFF) {
    this.#url = url
    this.#handlers = handlers
    this.#backoff = backoff
  }

  start(): void {
    this.#stopped = false
    window.addEventListener('online', this.#retryNow)
    this.#open()
  }

  stop(): void {
    this.#stopped = true
    window.removeEventListener('online', this.#retryNow)
    this.#clearTimers()
    this.#socket?.close(1000)
    this.#socket = null
  }

  get isOpen(): boolean {
    return this.#socket?.readyState === WebSocket.OPEN
  }

  send(message: unknown): boolean {
    if (!this.isOpen) return false
    this.#socket!.send(JSON.stringify(message))
    return true
  }

  /** Skip the remaining back-off wait (the banner's "Retry now", or the browser came back online). */
  readonly #retryNow = (): void => {
    if (this.#stopped || this.#socket !== null) return
    this.#clearTimers()
    this.#open()
  }

  retryNow(): void {
    this.#retryNow()
  }

  #open(): void {
    this.#handlers.onStatus(this.#everOpened ? 'reconnecting' : 'connecting')
    let socket: WebSocket
    try {
      socket = new WebSocket(this.#url)
    } catch {
      this.#scheduleRetry()
      return
    }
    this.#socket = socket
    this.#connectTimer = setTimeout(() => socket.close(), CONNECT_TIMEOUT_MS)
    socket.addEventListener('open', () => {
      if (this.#connectTimer) clearTimeout(this.#connectTimer)
      this.#attempt = 0
      this.#everOpened = true
      this.#handlers.onOpen()
    })
    socket.addEventListener('message', (event) => {
      if (typeof event.data !== 'string') return
      let message: WireServerMessage
      try {
        message = JSON.parse(event.data) as WireServerMessage
      } catch {
        return
      }
      if (message && message.v === 1) this.#handlers.onMessage(message)
    })
    socket.addEventListener('close', (event) => {
      if (this.#socket !== socket) return
      this.#socket = null
      if (this.#connectTimer) clearTimeout(this.#connectTimer)
      this.#handlers.onClose?.(event.code)
      if (!this.#stopped) this.#scheduleRetry()
    })
  }

  #scheduleRetry(): void {
    this.#handlers.onStatus(this.#everOpened ? 'reconnecting' : 'connecting')
    const delay = backoffDelay(this.#attempt++, this.#backoff)
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null
      this.#open()
    }, delay)
  }

  #clearTimers(): void {
    if (this.#retryTimer) clearTimeout(this.#retryTimer)
    if (this.#connectTimer) clearTimeout(this.#connectTimer)
    this.#retryTimer = null
    this.#connectTimer = null
  }
}
