import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { describe, expect, it, onTestFinished } from 'vitest'
import { Svc } from '../../../src/app.js'
import type { PageApp } from '../../../src/ui/page-app.js'
import type { LocalSessions, SessionHost } from '../../../src/ui/server/local-sessions.js'
import { PageSnapshots, type SnapshotBackend } from '../../../src/ui/server/session-snapshots.js'
import { localSessions, startUiServer } from '../../helpers/page-server-parts.js'
// The pool starts page threads from its built file (page-thread-main.js): the built module, as the page server runs it.
import { PageThreadPool } from '../../../dist/src/ui/server/page-thread-pool.js'
import { MediaStore } from '../../../dist/src/ui/media-store.js'

/**
 * The page server's long-lived parts keep the one close contract (src/internal/lifecycle.ts):
 * close twice is one promise, destroy cuts a running close short, destroy(err) fails pending work
 * with err. Real parts: sessions running a page, page threads, a listening server.
 */
const logger = pino({ level: 'silent' })
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
const context = Object.freeze({ headers: Object.freeze({}), cookies: Object.freeze({}), requestId: 'lc-1' })
const out = { send: () => undefined, close: () => undefined, unbind: () => undefined }

/** Redis as a graceful stop may find it: the run's write fails, the stop's write never answers. */
class StuckBackend implements SnapshotBackend {
  readonly writes: string[] = []
  set(key: string): Promise<void> {
    this.writes.push(key)
    return this.writes.length === 1 ? Promise.reject(new Error('redis away')) : new Promise(() => {})
  }
  async get(): Promise<string | null> {
    return null
  }
  async expire(): Promise<void> {}
  async del(): Promise<void> {}
}

function countingSessions(backend: SnapshotBackend): LocalSessions {
  const app = new Svc({ log_level: 'fatal' })
  app.page('/', (st) => {
    st.sessionState.n = ((st.sessionState.n as number | undefined) ?? 0) + 1
    st.text('hello')
  })
  return localSessions(app, new PageSnapshots({ backend, ttlSeconds: 60, logger }), logger)
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setImmediate(r))
  }
}

describe('LocalSessions keeps the close contract', () => {
  it('close twice is one promise; destroy cuts a close that waits on its snapshot writes short', async () => {
    const backend = new StuckBackend()
    const sessions = countingSessions(backend)
    await sessions.open({ requestedId: null, path: '/', query: '' }, context, out)
    await until(() => backend.writes.length === 1, 'the run’s snapshot write')
    const closing = sessions.close()
    expect(sessions.close()).toBe(closing)
    let closed = false
    void closing.then(() => (closed = true))
    await until(() => backend.writes.length === 2, 'the stop’s snapshot write')
    expect(closed).toBe(false)
    const destroying = sessions.destroy()
    expect(sessions.destroy()).toBe(destroying)
    await destroying
    await closing
    expect(sessions.size).toBe(0)
  })
})

describe('PageThreadPool keeps the close contract', () => {
  /** A pool whose thread never finishes importing the app: a session opened on it waits. */
  function hangingPool(): PageThreadPool {
    const before = process.env.APP_IMPORT_HANGS
    process.env.APP_IMPORT_HANGS = '1'
    onTestFinished(() => {
      if (before === undefined) delete process.env.APP_IMPORT_HANGS
      else process.env.APP_IMPORT_HANGS = before
    })
    const target = `${repo}/test/fixtures/app-slow-import.ts:app`
    const pool = new PageThreadPool({ size: 1, data: { target, cwd: repo, basePath: '', devMode: false, appFile: target }, logger, media: new MediaStore(), runTimeoutMs: 0, idleMs: 0 })
    onTestFinished(() => pool.destroy())
    return pool
  }

  it('destroy(err) fails a session still opening with err, and terminates its thread', async () => {
    const pool = hangingPool()
    const opening = pool.open({ requestedId: null, path: '/', query: '' }, context, out)
    const err = new Error('stopped by the test')
    const destroying = pool.destroy(err)
    expect(pool.destroy()).toBe(destroying)
    await expect(opening).rejects.toBe(err)
    await destroying
  })

  it('close twice is one promise, and a session still opening fails with the stop', async () => {
    const pool = hangingPool()
    const opening = pool.open({ requestedId: null, path: '/', query: '' }, context, out)
    const closing = pool.close()
    expect(pool.close()).toBe(closing)
    await expect(opening).rejects.toMatchObject({ code: 'SVC_ERR_UI_PAGE_THREAD', message: 'the page server is stopping' })
    await closing
    await expect(pool.open({ requestedId: null, path: '/', query: '' }, context, out)).rejects.toMatchObject({ code: 'SVC_ERR_UI_PAGE_THREAD' })
  })
})

describe('PageThreadPool idle sweep', () => {
  it('leaves a reload’s held thread alone while it lets an idle one go', async () => {
    const lines: string[] = []
    let letGo: () => void = () => undefined
    const firstLetGo = new Promise<void>((resolve) => (letGo = resolve))
    const seen = pino({ level: 'info' }, {
      write: (line: string) => {
        lines.push(line)
        if (line.includes('ui page thread let go')) letGo()
      },
    })
    const target = `${repo}/test/fixtures/app-basic.ts:app`
    const pool = new PageThreadPool({ size: 1, data: { target, cwd: repo, basePath: '', devMode: false, appFile: target }, logger: seen, media: new MediaStore(), runTimeoutMs: 0, idleMs: 100 })
    onTestFinished(() => pool.destroy())
    // No thread runs: the reload's fresh thread is the only one, held until the commit.
    expect(await pool.prepareReload()).toHaveProperty('profile')
    const [held] = (await pool.stats(0)).threads
    // A thread that takes sessions starts after it; once the sweep lets that one go, the held one (idle for longer) was in reach too.
    pool.warm()
    await firstLetGo
    expect(lines.filter((l) => l.includes('ui page thread let go'))).toHaveLength(1)
    // The held thread stays (a reload's thread reports `starting` until the commit).
    expect((await pool.stats(0)).threads.find((t) => t.id === held!.id)).toMatchObject({ status: 'starting' })
  })
})

describe('UiServer keeps the close contract', () => {
  /** Sessions whose graceful close never ends (a snapshot store that does not answer); they record a destroy. */
  function stuckSessions(): SessionHost & { destroyedWith: Error | undefined | null } {
    const host = {
      size: 0,
      destroyedWith: null as Error | undefined | null,
      open: () => Promise.reject(new Error('no sessions here')),
      upload: () => Promise.reject(new Error('no uploads here')),
      close: () => new Promise<void>(() => {}),
      destroy: async (err?: Error) => {
        host.destroyedWith = err
      },
    }
    return host
  }

  it('close twice is one promise; destroy(err) cuts it short, hands err to the sessions and stops listening', async () => {
    const sessions = stuckSessions()
    const { server: s, base } = await startUiServer({ title: 'Lifecycle', theme: {} } as unknown as PageApp['settings'], sessions, logger)
    const closing = s.close()
    expect(s.close()).toBe(closing)
    const health = await fetch(`${base}/_stcore/health`)
    expect(health.status).toBe(503)
    const err = new Error('second Ctrl-C')
    const destroying = s.destroy(err)
    expect(s.destroy()).toBe(destroying)
    await destroying
    await closing
    expect(sessions.destroyedWith).toBe(err)
    await expect(fetch(`${base}/_stcore/health`)).rejects.toThrow()
  })
})
