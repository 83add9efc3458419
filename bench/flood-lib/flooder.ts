import { once } from 'node:events'
import { WebSocket } from 'ws'

export interface FloodStats {
  /** Messages the flooder got onto its socket. */
  sent: number
  bytes: number
  /** Times the server closed its socket with 1009 (it was then reopened at once). */
  refused: number
}

/** Just under the 1 MiB limit (a string value), 1 MiB of 99,000 array entries, or 64 MB (refused from its header). */
export type FloodKind = 'string' | 'entries' | 'huge'

const MIB = 1024 * 1024

function messageOf(kind: FloodKind, id: string): string {
  if (kind === 'string') return JSON.stringify({ v: 1, type: 'widget', id, value: 'x'.repeat(MIB - 200) })
  if (kind === 'entries') return JSON.stringify({ v: 1, type: 'widget', id, value: Array.from({ length: 99_000 }, (_, i) => i % 10) })
  return `{"v":1,"type":"widget","id":"${id}","value":"${'x'.repeat(64_000_000)}"}`
}

/**
 * One hostile client: opens a session on `path`, then sends messages of `kind` as fast as its socket
 * takes it (the next one as soon as ws has handed the previous one to TCP) until `stop` resolves.
 * A socket the server closes is reopened at once, so an oversized flood keeps coming.
 */
export async function flood(url: string, path: string, kind: FloodKind, stop: Promise<void>): Promise<FloodStats> {
  const stats: FloodStats = { sent: 0, bytes: 0, refused: 0 }
  let stopped = false
  void stop.then(() => (stopped = true))
  while (!stopped) {
    const ws = new WebSocket(url, { perMessageDeflate: false })
    ws.on('error', () => undefined)
    await once(ws, 'open')
    const id = await firstWidgetId(ws, path)
    const closed = once(ws, 'close').then(([code]) => {
      if (code === 1009) stats.refused++
    })
    let open = true
    void closed.then(() => (open = false))
    const text = messageOf(kind, id)
    while (open && !stopped) {
      ws.send(text)
      stats.sent++
      stats.bytes += text.length
      // Wait until ws has written it: the server's reading pace sets the flood's pace.
      while (open && !stopped && ws.bufferedAmount > 0) await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1))])
    }
    if (open) {
      ws.terminate()
      await closed
    }
  }
  return stats
}

function firstWidgetId(ws: WebSocket, path: string): Promise<string> {
  return new Promise((resolve) => {
    // Frames of one TCP read arrive back to back: a listener for the whole wait misses none.
    const onMessage = (data: Buffer): void => {
      const m = JSON.parse(data.toString()) as { type: string; main?: { id: string; type: string }[] }
      const slider = m.type === 'render' ? m.main?.find((n) => n.type === 'slider') : undefined
      if (!slider) return
      ws.off('message', onMessage)
      resolve(slider.id)
    }
    ws.on('message', onMessage)
    ws.send(JSON.stringify({ v: 1, type: 'hello', sessionId: null, path, query: '' }))
  })
}
