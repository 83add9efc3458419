import { findWidget, PageSocket } from './page-socket.js'
import { percentile } from './report.js'
import type { SidecarProcess } from './sidecar-process.js'

export interface IsolationResult {
  /** Reruns of session B completed while session A burned CPU. */
  samples: number
  p50: number
  max: number
  /** Sidecar RSS with both sessions open (bytes). */
  rss: number
}

/**
 * Session A sets its burn slider (the page then computes synchronously for that many ms); session
 * B, opened after A, reruns its slider page in a loop until A's run is rendered. B's latencies
 * over that window are the figure: in one event loop the first of them waits for A's whole burn;
 * with page threads B shares A's thread until A's first burn moves it to another (a thread start
 * in the first round), then runs beside it.
 */
export async function rerunWhileBusy(sidecar: SidecarProcess, o: { burnPath: string; burnKey: string; otherPath: string; otherKey: string; burnMs: number; rounds: number }): Promise<IsolationResult> {
  const a = await PageSocket.open(sidecar.wsUrl, o.burnPath)
  const b = await PageSocket.open(sidecar.wsUrl, o.otherPath)
  const burn = findWidget(a.render.main, 'slider', o.burnKey)
  const slider = findWidget(b.render.main, 'slider', o.otherKey)
  if (!burn || !slider) throw new Error(`bench pages ${o.burnPath} and ${o.otherPath} need sliders "${o.burnKey}" and "${o.otherKey}"`)
  const latencies: number[] = []
  try {
    for (let round = 0; round < o.rounds; round++) {
      let done = false
      // Alternate 0/burnMs-ish values so every round is a change that burns.
      const burning = a.socket.interact(burn.id, o.burnMs + (round % 2)).then(() => (done = true))
      let v = 1
      while (!done) latencies.push((await b.socket.interact(slider.id, (v++ % 999) + 1)).latencyMs)
      await burning
    }
    return { samples: latencies.length, p50: percentile(latencies, 50), max: Math.max(...latencies), rss: sidecar.rss() }
  } finally {
    await Promise.all([a.socket.close(), b.socket.close()])
  }
}
