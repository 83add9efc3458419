import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { expect, it, onTestFinished } from 'vitest'
// The pool starts page threads from its built file (page-thread-main.js): the built module, as the page server runs it.
import { PageThreadPool } from '../../../dist/src/ui/server/page-thread-pool.js'
import { MediaStore } from '../../../dist/src/ui/media-store.js'

/**
 * `svc status` shows each page thread as it is: `starting` while it loads the app (the first
 * visitor waits on it), `online` once it serves. Real page threads.
 */
const logger = pino({ level: 'silent' })
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
const context = Object.freeze({ headers: Object.freeze({}), cookies: Object.freeze({}), requestId: 'st-1' })
const out = { send: () => undefined, close: () => undefined, unbind: () => undefined }

function pool(target: string): PageThreadPool {
  const p = new PageThreadPool({ size: 1, data: { target, cwd: repo, basePath: '', devMode: false, appFile: target }, logger, media: new MediaStore(), runTimeoutMs: 0, idleMs: 0 })
  onTestFinished(() => p.destroy())
  return p
}

it('a page thread that is still loading the app is listed as starting, not online', async () => {
  const before = process.env.APP_IMPORT_HANGS
  process.env.APP_IMPORT_HANGS = '1'
  onTestFinished(() => {
    if (before === undefined) delete process.env.APP_IMPORT_HANGS
    else process.env.APP_IMPORT_HANGS = before
  })
  const p = pool(`${repo}/test/fixtures/app-slow-import.ts:app`)
  const opening = p.open({ requestedId: null, path: '/', query: '' }, context, out)
  opening.catch(() => undefined)
  const stats = await p.stats(0)
  expect(stats.threads).toMatchObject([{ id: 1, status: 'starting', sessions: 0 }])
})

it('a page thread serving a session is listed as online, with the session', async () => {
  const p = pool(`${repo}/examples/hello/app.ts:app`)
  await p.open({ requestedId: null, path: '/', query: '' }, context, out)
  const stats = await p.stats(0)
  expect(stats).toMatchObject({ sessions: 1, threads: [{ id: 1, status: 'online', sessions: 1 }] })
})
