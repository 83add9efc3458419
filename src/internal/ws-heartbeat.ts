import type { WebSocket } from 'ws'

/** Ping interval of svc's WebSockets (the gateway's tunnels, the page socket). */
export const HEARTBEAT_MS = 30_000

/**
 * Ping `ws` every `HEARTBEAT_MS`; a peer that has not answered the previous ping is dropped (it
 * vanished without a close frame: a sleeping laptop, a dropped NAT entry). Returns the stop.
 */
export function startHeartbeat(ws: WebSocket): () => void {
  let alive = true
  ws.on('pong', () => {
    alive = true
  })
  const timer = setInterval(() => {
    if (!alive) {
      ws.terminate()
      return
    }
    alive = false
    ws.ping()
  }, HEARTBEAT_MS)
  timer.unref()
  return () => clearInterval(timer)
}
