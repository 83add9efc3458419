import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { Agent, request } from 'undici'
import { tempDir } from '../helpers/cli-run.js'
import { REPO, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'
import { PageClient, textOf } from '../helpers/ui-sidecar.js'

/**
 * Issue #24.3: under `svc dev --reload` the supervisor is the one watcher. It tells the bundled
 * page server to reload next to replacing the gateway workers and announces the reload only when
 * both serve the new save: from the announcement on, no read shows one save's API with another
 * save's page.
 */
// The pages load this app 1.5 s slower than the API does (page threads are worker threads): a
// reload announced when the workers are ready, before the pages, would show the new API next
// to the old page.
const appSource = (version: number): string => `import { isMainThread } from 'node:worker_threads'
import { Svc } from ${JSON.stringify(`${REPO}dist/src/app.js`)}
if (!isMainThread) await new Promise((resolve) => setTimeout(resolve, 1500))
export const app = new Svc({ title: 'Owner' })
app.api.get('/version', async () => ({ version: ${version} }))
app.page('/', (st) => st.text('v${version}'))
`
const ANNOUNCED = /reloaded \(gateway\)/

afterEach(stopAllTrees)

/** The API's version over a fresh connection (a kept-alive one could still reach a draining worker). */
async function apiVersion(svc: SvcTree): Promise<number> {
  const agent = new Agent({ pipelining: 0 })
  try {
    const res = await request(`${svc.url}/api/version`, { dispatcher: agent })
    return ((await res.body.json()) as { version: number }).version
  } finally {
    await agent.close()
  }
}

/**
 * The version a new page session renders, through the gateway's WebSocket proxy. A socket opened
 * while the save replaces the worker or the page thread may be closed (1001) or told to `resume`
 * before it renders; a browser then connects again or says hello again, and so does this.
 */
async function pageVersion(svc: SvcTree): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const client = await new PageClient(`${svc.url.replace(/^http/, 'ws')}/_stcore/stream`).open()
    try {
      const interrupted = new Promise<'again'>((resolve) => {
        client.ws.once('close', () => resolve('again'))
        client.ws.on('message', (d) => {
          if ((JSON.parse(d.toString()) as { type?: string }).type === 'resume') resolve('again')
        })
      })
      client.send({ type: 'hello', sessionId: null, path: '/', query: '' })
      const rendered = client.next('session', 15_000).then(async () => Number(/^v(\d+)$/.exec(textOf(await client.render(15_000)))?.[1]))
      rendered.catch(() => undefined)
      const outcome = await Promise.race([rendered, interrupted])
      if (outcome !== 'again') return outcome
      if (attempt === 3) throw new Error('the page socket was interrupted three times in a row')
    } finally {
      await client.close()
    }
  }
}

it('one save: API and pages switch together; the supervisor announces it once both serve the new save', async () => {
  const dir = await tempDir('svc-reload-owner-')
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
  writeFileSync(join(dir, 'app.ts'), appSource(1))
  const svc = await startSvc({ command: 'dev', target: 'app.ts:app', cwd: dir, args: ['--reload'], env: { SVC_UI_COMMAND: undefined }, timeoutMs: 40_000 })
  await svc.waitForLine('stderr', /--reload \(scope gateway\)/)
  expect([await apiVersion(svc), await pageVersion(svc)]).toEqual([1, 1])

  const from = svc.stdout.length
  const announced = (): boolean => svc.stdout.some((l, i) => i >= from && ANNOUNCED.test(l))
  writeFileSync(join(dir, 'app.ts'), appSource(2))
  const afterAnnouncement: [number, number][] = []
  const deadline = Date.now() + 40_000
  // Read both until the announcement, then ten pairs more: each pair started after it was seen.
  while (afterAnnouncement.length < 10) {
    if (Date.now() > deadline) throw new Error(`no announced reload within 40 s; stdout:\n${svc.stdout.slice(from).join('\n')}`)
    const seen = announced()
    const pair: [number, number] = await Promise.all([apiVersion(svc), pageVersion(svc)])
    if (seen) afterAnnouncement.push(pair)
  }
  expect(afterAnnouncement).toEqual(Array.from({ length: 10 }, () => [2, 2]))
  // One watcher: the page server reloaded once, told by the supervisor, and logged no line of its own.
  expect(svc.stdout.filter((l, i) => i >= from && ANNOUNCED.test(l))).toHaveLength(1)
  expect(svc.stdout.filter((l, i) => i >= from && /ui reload: app changed/.test(l))).toEqual([])
  expect(svc.stdout.find((l, i) => i >= from && ANNOUNCED.test(l))).toMatch(/fresh pages ready/)
}, 90_000)

it('a save that does not load: one line; the API keeps the previous save and the open page shows why', async () => {
  const dir = await tempDir('svc-reload-owner-')
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
  writeFileSync(join(dir, 'app.ts'), appSource(1))
  const svc = await startSvc({ command: 'dev', target: 'app.ts:app', cwd: dir, args: ['--reload'], env: { SVC_UI_COMMAND: undefined }, timeoutMs: 40_000 })
  await svc.waitForLine('stderr', /--reload \(scope gateway\)/)
  const client = await new PageClient(`${svc.url.replace(/^http/, 'ws')}/_stcore/stream`).open()
  try {
    client.send({ type: 'hello', sessionId: null, path: '/', query: '' })
    await client.next('session', 15_000)
    expect(textOf(await client.render(15_000))).toBe('v1')
    const from = svc.stdout.length
    writeFileSync(join(dir, 'app.ts'), appSource(2).replace("st.text('v2')", "st.text('v2'))"))
    // The page server answered the supervisor's reload with the failure: the open page shows it.
    const shown = await client.next('dev_error', 40_000)
    expect(shown.error?.summary).toMatch(/cannot load app\.ts: syntax error at app\.ts:\d+/)
    await svc.waitForLine('stdout', /reload failed, the running workers keep serving/, 40_000, from)
    expect(svc.stdout.filter((l, i) => i >= from && /reload failed|reloaded \(/.test(l))).toHaveLength(1)
    expect(await apiVersion(svc)).toBe(1)
  } finally {
    await client.close()
  }
}, 90_000)

it('a broken save before any page was opened: a new tab gets the overlay on a socket that waits (no retries, no error lines) and opens its session on the next good save', async () => {
  const dir = await tempDir('svc-reload-owner-')
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
  writeFileSync(join(dir, 'app.ts'), appSource(1))
  const svc = await startSvc({ command: 'dev', target: 'app.ts:app', cwd: dir, args: ['--reload', '--log-format', 'json', '--log-level', 'debug'], env: { SVC_UI_COMMAND: undefined }, timeoutMs: 40_000 })
  await svc.waitForLine('stderr', /--reload \(scope gateway\)/)
  const from = svc.stdout.length
  writeFileSync(join(dir, 'app.ts'), appSource(2).replace("st.text('v2')", "st.text('v2'))"))
  await svc.waitForLine('stdout', /reload failed, the running workers keep serving/, 40_000, from)
  // No page thread has loaded the app yet: the first one loads the broken save and cannot open
  // sessions. Each tab is answered with the overlay and its socket stays open, waiting.
  const clients: PageClient[] = []
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      const client = await new PageClient(`${svc.url.replace(/^http/, 'ws')}/_stcore/stream`).open()
      clients.push(client)
      client.send({ type: 'hello', sessionId: null, path: '/', query: '' })
      expect((await client.next('dev_error', 15_000)).error?.summary).toMatch(/syntax error at app\.ts/)
    }
    // Both sockets wait (the page server says so at debug) rather than being closed for a retry.
    await expect.poll(() => svc.stdout.filter((l, i) => i >= from && /waiting for the next good save/.test(l)).length, { timeout: 30_000 }).toBe(2)
    const levels = svc.stdout.filter((l, i) => i >= from && l.startsWith('{')).map((l) => JSON.parse(l) as { level: string; message: string })
    const errors = levels.filter((r) => r.level === 'error')
    expect(errors).toHaveLength(1)
    expect(errors[0]!.message).toMatch(/reload failed/)
    // The next good save: each waiting socket is told to say hello again, and gets its session.
    writeFileSync(join(dir, 'app.ts'), appSource(3))
    for (const client of clients) {
      await client.next('resume', 30_000)
      expect(client.ws.readyState).toBe(client.ws.OPEN)
      client.send({ type: 'hello', sessionId: null, path: '/', query: '' })
      await client.next('session', 15_000)
    }
  } finally {
    for (const client of clients) await client.close()
  }
}, 90_000)
