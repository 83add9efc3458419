import { randomUUID } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { afterAll, afterEach, expect, it } from 'vitest'
import { readCmdline } from '../../src/process/process-check.js'
import { REPO, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'
import { PageClient, textOf } from '../helpers/ui-sidecar.js'
import { waitUntil } from '../helpers/cli-processes.js'

/**
 * `svc dev --reload` on a real tree: every save loads the app on fresh page threads (fresh
 * isolates), so saves do not pile module graphs up in the page server. 20 saves, each waited for
 * (gateway reloaded, page threads replaced, the open page showing the new version): the tree and
 * the page server end within 10% of their size after the first save. The tree is measured once the
 * replaced gateway worker has drained and exited (a reload's "reloaded" line comes before that),
 * and without the standby worker the supervisor prepares for the next reload (its size depends on
 * how far its start-up got); that no process is left behind is checked by their titles, and that
 * no thread leaves an exited child unreaped (a zombie) by /proc.
 */
const dir = `${REPO}test/.tmp/reload-memory-${randomUUID()}`
const file = `${dir}/app.ts`
const source = (version: number): string => `import { Svc } from 'svc'
export const app = new Svc({ title: 'Reload memory', log_format: 'json' })
const rows = Array.from({ length: 2000 }, (_, i) => ({ i, label: 'row ' + i + ' of version ${version}' }))
app.api.get('/version', async () => ({ version: ${version} }))
app.page('/', (st) => {
  st.sessionState.n = (st.sessionState.n ?? 0) + 1
  st.text('v${version} n=' + st.sessionState.n)
  st.dataframe(rows, { pageSize: 10 })
})
`

/** Exited and never waited for by its parent (`Z` in /proc/<pid>/stat). */
const zombie = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')
  } catch {
    return false
  }
}

const rssOf = (pid: number): number => {
  try {
    return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024
  } catch {
    return 0
  }
}

afterEach(stopAllTrees, 40_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it('20 saves under svc dev --reload leave the tree and the page server within 10% of their size after the first', async () => {
  mkdirSync(dir, { recursive: true })
  writeFileSync(file, source(0))
  const svc: SvcTree = await startSvc({ command: 'dev', args: ['--reload'], target: `${file}:app`, env: { SVC_UI_COMMAND: undefined }, timeoutMs: 60_000 })
  const open = async (sessionId: string | null): Promise<{ client: PageClient; sessionId: string; text: string }> => {
    const client = await new PageClient(`${svc.url.replace('http:', 'ws:')}/_stcore/stream`).open()
    client.send({ type: 'hello', sessionId, path: '/', query: '' })
    const session = await client.next('session', 30_000)
    if (sessionId !== null) expect(session).toMatchObject({ sessionId, restored: true })
    return { client, sessionId: session.sessionId, text: textOf(await client.render(30_000)) }
  }
  // A gateway reload closes the sockets it relays (1001), so each version is visited on a new
  // socket, as a browser reconnects, resuming the same session.
  let visit = await open(null)
  expect(visit.text).toBe('v0 n=1')
  const sidecar = (): number => svc.treePids().find((p) => readCmdline(p)?.[0] === 'svc sidecar')!
  // A process that exits between the listing and the read (a one-shot esbuild call) has no title: it is not counted.
  const titled = (): { pid: number; title: string }[] => svc.treePids().flatMap((pid) => (readCmdline(pid)?.[0] ? [{ pid, title: readCmdline(pid)![0]! }] : []))
  const gateways = (): number => titled().filter((p) => p.title === 'svc gateway').length
  const measure = async (): Promise<{ tree: number; sidecar: number; titles: string[] }> => {
    await waitUntil('the replaced gateway worker to exit', () => gateways() === 1, 60_000)
    // A page thread stops esbuild's service once its app is loaded and reaps it: an exited child
    // may show for a moment, but one no thread waits for stays (one per save before the fix).
    await waitUntil('no zombie process in the tree', () => !svc.treePids().some(zombie), 10_000)
    // The standby worker (under its title, or as plain node while it starts), the manifest child
    // and esbuild's service (started by whichever process transforms TypeScript) come and go.
    const passing = (p: { pid: number; title: string }): boolean =>
      p.title === 'svc standby worker' || p.title === 'svc page manifest' || (readCmdline(p.pid) ?? []).some((a) => a.endsWith('gateway/main.js') || /esbuild$/.test(a))
    const all = titled()
    const kept = all.filter((p) => !passing(p))
    return { tree: kept.reduce((sum, p) => sum + rssOf(p.pid), 0), sidecar: rssOf(sidecar()), titles: kept.map((p) => p.title).sort() }
  }
  const sizes: { tree: number; sidecar: number; titles: string[] }[] = []
  for (let version = 1; version <= 20; version++) {
    await visit.client.close()
    const fromOut = svc.stdout.length
    writeFileSync(file, source(version))
    await svc.waitForLine('stdout', /reloaded \(gateway\): .*fresh pages ready/, 60_000, fromOut)
    visit = await open(visit.sessionId)
    expect(visit.text).toBe(`v${version} n=${version + 1}`)
    sizes.push(await measure())
  }
  await visit.client.close()
  const mib = (b: number): string => (b / 1048576).toFixed(0)
  console.log(`after save 1: tree ${mib(sizes[0]!.tree)} MiB, page server ${mib(sizes[0]!.sidecar)} MiB; after save 20: tree ${mib(sizes[19]!.tree)} MiB, page server ${mib(sizes[19]!.sidecar)} MiB; processes: ${sizes[19]!.titles.join(", ")}`)
  expect(sizes[19]!.titles, 'the processes of the tree after the last save').toEqual(sizes[0]!.titles)
  expect(sizes[19]!.sidecar).toBeLessThan(sizes[0]!.sidecar * 1.1)
  expect(sizes[19]!.tree).toBeLessThan(sizes[0]!.tree * 1.1)
}, 400_000)
