import { once } from 'node:events'
import { WebSocket } from 'ws'

export interface VisitorCounts {
  clicks: number
  reconnects: number
  resumes: number
  /** A click whose render did not come within the deadline (the socket is then reopened). */
  lost: number
}

const CLICK_DEADLINE_MS = 15_000

/**
 * A browser tab on `/` that moves its slider, waits for the rerun's render and moves it again,
 * until `stop`. Like the bundled client it says hello again on `resume` (its session moved to
 * fresh page threads) and reconnects with its session id when the socket closes (a gateway reload).
 */
export async function visit(wsUrl: string, counts: VisitorCounts, stop: () => boolean): Promise<void> {
  let sessionId: string | null = null
  let value = 0
  while (!stop()) {
    const ws = new WebSocket(wsUrl, { perMessageDeflate: false })
    ws.on('error', () => undefined)
    try {
      await once(ws, 'open')
    } catch {
      counts.reconnects++
      await new Promise((resolve) => setTimeout(resolve, 250))
      continue
    }
    let slider: string | null = null
    let waiting: ((ok: boolean) => void) | null = null
    const hello = (): void => ws.send(JSON.stringify({ v: 1, type: 'hello', sessionId, path: '/', query: '' }))
    ws.on('message', (data: Buffer) => {
      const m = JSON.parse(data.toString()) as { type: string; sessionId?: string; partial?: boolean; main?: { id: string; type: string }[] }
      if (m.type === 'session') sessionId = m.sessionId ?? null
      else if (m.type === 'resume') {
        counts.resumes++
        hello()
      } else if (m.type === 'render' && !m.partial) {
        slider = m.main?.find((n) => n.type === 'slider')?.id ?? slider
        waiting?.(true)
      }
    })
    const closed = once(ws, 'close').then(() => waiting?.(false))
    hello()
    const next = (): Promise<boolean> =>
      new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), CLICK_DEADLINE_MS)
        waiting = (ok) => {
          clearTimeout(timer)
          waiting = null
          resolve(ok)
        }
      })
    if (!(await next())) {
      counts.reconnects++
      ws.terminate()
      continue
    }
    while (!stop() && ws.readyState === WebSocket.OPEN && slider !== null) {
      const rendered = next()
      ws.send(JSON.stringify({ v: 1, type: 'widget', id: slider, value: (value = (value + 1) % 1000) }))
      if (await rendered) counts.clicks++
      else if (ws.readyState === WebSocket.OPEN) counts.lost++
    }
    if (ws.readyState !== WebSocket.CLOSED) ws.close()
    await closed
    if (!stop()) counts.reconnects++
  }
}
