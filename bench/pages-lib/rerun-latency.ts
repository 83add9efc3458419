import { performance } from 'node:perf_hooks'
import type { Svc } from 'svc'
import { createUiTestHandle, type UiTestHandle, type WidgetView } from 'svc/ui'
import { countNodes, findWidget, PageSocket, type RerunSample } from './page-socket.js'
import { mean, percentile } from './report.js'

export interface LatencyResult {
  elements: number
  p50: number
  p99: number
  /** Mean bytes received per rerun (socket rows only). */
  bytes: number | null
}

export interface PageUnderTest {
  path: string
  sliderKey: string
  expectElements: number
}

/** One page, ready to rerun: `step(value)` changes its slider and waits for the run. */
interface Driver {
  elements: number
  step(value: number): Promise<{ latencyMs: number; bytes: number | null }>
  close(): Promise<void>
}

function checkElements(path: string, found: number, expected: number): void {
  if (found !== expected) throw new Error(`page ${path} drew ${found} elements, expected ${expected}: fix bench/fixtures/pages-app.ts`)
}

/** Over a real page socket: send → final render, with the bytes of the run's frames. */
export async function socketDriver(wsUrl: string, page: PageUnderTest): Promise<Driver> {
  const { socket, render } = await PageSocket.open(wsUrl, page.path)
  const elements = countNodes(render.main) + countNodes(render.sidebar)
  checkElements(page.path, elements, page.expectElements)
  const slider = findWidget(render.main, 'slider', page.sliderKey)
  if (!slider) throw new Error(`page ${page.path} has no slider with key "${page.sliderKey}"`)
  return {
    elements,
    step: (value): Promise<RerunSample> => socket.interact(slider.id, value),
    close: () => socket.close(),
  }
}

/** The test handle keeps a copy of every message it saw; a fresh one this often keeps that out of the figures. */
const HANDLE_RUNS = 100

/**
 * Through the in-process test handle: the rerun engine alone, no JSON and no socket (the
 * handle does copy each message with structuredClone).
 */
export async function engineDriver(app: Svc, page: PageUnderTest): Promise<Driver> {
  const fresh = async (): Promise<{ at: UiTestHandle; slider: WidgetView }> => {
    const at = await createUiTestHandle(app, { target: page.path }).run()
    // Looked up once per handle: the id is stable across runs, and the lookup walks the whole tree.
    return { at, slider: at.slider(page.sliderKey) }
  }
  let current = await fresh()
  const elements = countViews(current.at.main) + countViews(current.at.sidebar)
  checkElements(page.path, elements, page.expectElements)
  let runs = 0
  return {
    elements,
    async step(value) {
      if (runs > 0 && runs % HANDLE_RUNS === 0) current = await fresh()
      runs++
      const start = performance.now()
      await current.slider.setValue(value).run()
      return { latencyMs: performance.now() - start, bytes: null }
    },
    close: async () => {},
  }
}

/** Reruns of one page in a row before switching to the other. */
const BLOCK = 100

/**
 * Rerun both pages `samples` times, alternating blocks of reruns, so background noise on the
 * machine lands on both alike (the ratio stays fair) while each block mostly pays for its own
 * garbage. Slider values walk 1..999: every rerun draws different content.
 */
export async function comparePair(a: Driver, b: Driver, warmup: number, samples: number): Promise<[LatencyResult, LatencyResult]> {
  const lat: [number[], number[]] = [[], []]
  const bytes: [number[], number[]] = [[], []]
  try {
    for (let done = 0; done < warmup + samples; done += BLOCK) {
      const n = Math.min(BLOCK, warmup + samples - done)
      for (const [k, d] of [a, b].entries()) {
        for (let i = done; i < done + n; i++) {
          const s = await d.step((i % 999) + 1)
          if (i < warmup) continue
          lat[k]!.push(s.latencyMs)
          if (s.bytes !== null) bytes[k]!.push(s.bytes)
        }
      }
    }
  } finally {
    await Promise.all([a.close(), b.close()])
  }
  const result = (k: 0 | 1, d: Driver): LatencyResult => ({
    elements: d.elements,
    p50: percentile(lat[k], 50),
    p99: percentile(lat[k], 99),
    bytes: bytes[k].length > 0 ? mean(bytes[k]) : null,
  })
  return [result(0, a), result(1, b)]
}

function countViews(views: readonly { children: readonly unknown[] }[]): number {
  return views.reduce((n, v) => n + 1 + countViews(v.children as { children: readonly unknown[] }[]), 0)
}
