import type { Socket } from 'node:net'

/**
 * nginx's lingering close. Closing a socket while the client's bytes are still unread makes the
 * kernel answer with a reset, and a reset can discard the answer the client has not read yet
 * (a 400 for a bad path while an upload is still arriving, an HTTP/1.0 answer followed by a
 * pipelined request). So the gateway half-closes after its last byte, reads and discards what
 * still arrives, and closes when the client does, when it has been silent for
 * `LINGER_IDLE_MS`, or after `LINGER_MAX_MS` at the most.
 */
export const LINGER_IDLE_MS = 2_000
export const LINGER_MAX_MS = 10_000
/**
 * After a timeout (408: headers or body too slow) the client has had its time: it gets this long
 * to read the answer, not LINGER_MAX_MS. A slowloris that keeps sending after its 408 would
 * otherwise hold the connection 10 s past the header timeout (and, under load, past 75 s).
 */
export const LINGER_AFTER_TIMEOUT_MS = 1_000

/** Sockets answered with a timeout: their lingering close is the short one. */
const timedOut = new WeakSet<Socket>()

/** Mark `socket` as answered with a timeout: the lingering close that ends it lasts LINGER_AFTER_TIMEOUT_MS at most. */
export function lingerBriefly(socket: Socket): void {
  timedOut.add(socket)
}

function discard(): void {}

/** Detach the HTTP parser from `socket`: whatever arrives from now on is read and discarded, never taken for a request. */
export function discardInput(socket: Socket): void {
  socket.removeAllListeners('data')
  socket.on('data', discard)
}

/** End `socket` after `lastBytes` (if any) and linger; nothing read from now on is parsed. */
export function lingeringClose(socket: Socket, lastBytes?: string): void {
  if (socket.destroyed) return
  discardInput(socket)
  socket.removeAllListeners('end')
  socket.on('error', () => socket.destroy())
  const maxMs = timedOut.has(socket) ? LINGER_AFTER_TIMEOUT_MS : LINGER_MAX_MS
  socket.setTimeout(Math.min(LINGER_IDLE_MS, maxMs), () => socket.destroy())
  const timer = setTimeout(() => socket.destroy(), maxMs)
  timer.unref()
  socket.once('close', () => clearTimeout(timer))
  // Both halves ended → the stream destroys itself (autoDestroy); no half-open descriptor stays.
  socket.once('end', () => socket.destroy())
  socket.resume()
  if (lastBytes === undefined) socket.end()
  else socket.end(lastBytes)
}

/** Installed as `destroySoon` on every client socket: Node calls it after a `Connection: close` answer. */
export function lingeringDestroySoon(this: Socket): void {
  lingeringClose(this)
}
