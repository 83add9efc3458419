import { once } from 'node:events'
import { setTimeout as delay } from 'node:timers/promises'
import { WebSocket } from 'ws'
import { spawnTracked } from '../lib/processes.js'
import { REPO, SVC_BIN } from '../lib/servers.js'
import { byTitle, processStat } from '../soak-lib/tree-stats.js'

/** The tree's RSS by process title at one moment. */
export type TreeMemory = ReturnType<typeof byTitle>

export interface TreeMemoryResult {
  idle: TreeMemory
  /** After each of `sessions` page sessions opened (a browser's page GET, socket, first render). */
  withSessions: TreeMemory[]
}

/** Let the last allocations settle before reading RSS (a measurement, not synchronisation). */
const SETTLE_MS = 2_000

/**
 * `svc run target` with the bundled page server: the summed RSS of its processes when idle and
 * after each of `sessions` page sessions on `path`, each opened as a browser does.
 */
export async function treeMemory(target: string, path: string, sessions: number): Promise<TreeMemoryResult> {
  const svc = spawnTracked(process.execPath, [SVC_BIN, 'run', target, '--port', '0', '--no-pidfile'], { cwd: REPO, env: { ...process.env, SVC_UI_COMMAND: '', SVC_LOG_LEVEL: 'warn' } })
  const sockets: WebSocket[] = []
  try {
    const line = await svc.waitForLine('stderr', /listening on http:\/\//, 60_000)
    const origin = /listening on (http:\/\/[^/\s]+)/.exec(line)![1]!
    const read = (): TreeMemory => byTitle(svc.treePids().flatMap((pid) => processStat(pid) ?? []))
    await delay(SETTLE_MS)
    const idle = read()
    const withSessions: TreeMemory[] = []
    for (let i = 0; i < sessions; i++) {
      await (await fetch(`${origin}${path}`, { headers: { accept: 'text/html' } })).text()
      const ws = new WebSocket(`${origin.replace('http:', 'ws:')}/_stcore/stream`, { perMessageDeflate: false })
      sockets.push(ws)
      await once(ws, 'open')
      const rendered = new Promise<void>((resolve) =>
        ws.on('message', (data: Buffer) => {
          const m = JSON.parse(data.toString()) as { type: string; partial?: boolean }
          if (m.type === 'render' && !m.partial) resolve()
        }),
      )
      ws.send(JSON.stringify({ v: 1, type: 'hello', sessionId: null, path, query: '' }))
      await rendered
      await delay(SETTLE_MS)
      withSessions.push(read())
    }
    return { idle, withSessions }
  } finally {
    for (const ws of sockets) ws.terminate()
    await svc.stop()
  }
}

export function summed(memory: TreeMemory): number {
  let total = 0
  for (const e of memory.values()) total += e.rssBytes
  return total
}
