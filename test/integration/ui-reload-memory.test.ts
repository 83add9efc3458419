import { randomUUID } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { afterAll, afterEach, expect, it } from 'vitest'
import { readCmdline } from '../../src/process/process-check.js'
import { REPO, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'
import { PageClient, textOf } from '../helpers/ui-sidecar.js'

/**
 * `svc dev --reload` on a real tree: every save loads the app on fresh page threads (fresh
 * isolates), so saves do not pile module graphs up in the page server. 20 saves, each waited for
 * (gateway reloaded, page threads replaced, the open page showing the new version): the tree and
 * the page server end within 10% of their size after the first save.
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
  const sizes: { tree: number; sidecar: number }[] = []
  for (let version = 1; version <= 20; version++) {
    await visit.client.close()
    const fromOut = svc.stdout.length
    writeFileSync(file, source(version))
    await svc.waitForLine('stdout', /reloaded \(gateway\): .*fresh pages ready/, 60_000, fromOut)
    visit = await open(visit.sessionId)
    expect(visit.text).toBe(`v${version} n=${version + 1}`)
    sizes.push({ tree: svc.treePids().reduce((sum, p) => sum + rssOf(p), 0), sidecar: rssOf(sidecar()) })
  }
  await visit.client.close()
  const mib = (b: number): string => (b / 1048576).toFixed(0)
  console.log(`after save 1: tree ${mib(sizes[0]!.tree)} MiB, page server ${mib(sizes[0]!.sidecar)} MiB; after save 20: tree ${mib(sizes[19]!.tree)} MiB, page server ${mib(sizes[19]!.sidecar)} MiB`)
  expect(sizes[19]!.sidecar).toBeLessThan(sizes[0]!.sidecar * 1.1)
  expect(sizes[19]!.tree).toBeLessThan(sizes[0]!.tree * 1.1)
}, 400_000)
