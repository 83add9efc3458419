import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { Svc, isSvc } from '../../../src/app.js'
import { loadTarget } from '../../../src/target/load-target.js'
import { pageSideOf, type PageServerApp, type SvcApp } from '../../../src/ui/page-app.js'
import { Svc as BuiltSvc, isSvc as builtIsSvc } from '../../../dist/src/index.js'

/**
 * Issues #24.4 and #32.5: the page server, its page and task threads, the probe child, dev reload
 * and the test handle see the app through `PageServerApp`, plain members read with `pageSideOf`,
 * and never through a symbol of the app object.
 */
describe('the page side through PageServerApp', () => {
  const readers = [
    'src/ui/server/sidecar.ts',
    'src/ui/server/page-thread-main.ts',
    'src/ui/server/task-thread-main.ts',
    'src/ui/server/local-sessions.ts',
    'src/ui/server/dev-reload.ts',
    'src/testing/app-test.ts',
    'probe/probe.ts',
  ]
  it.each(readers)('%s reads no symbol of the app object', (file) => {
    const source = readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8')
    expect(source).not.toMatch(/internal\/symbols\.js/)
    expect(source).not.toMatch(/app\[k[A-Z]/)
  })

  it('Svc carries the shared Redis as pageSnapshotStore (null without redis_url)', async () => {
    const plain: PageServerApp = pageSideOf(new Svc({ title: 'plain' }))
    expect(plain.pageSnapshotStore).toBeNull()
    const app = new Svc({ title: 'shared', redis_url: 'redis://127.0.0.1:1/0' })
    const store = pageSideOf(app).pageSnapshotStore
    expect(store).not.toBeNull()
    expect(typeof store?.probe).toBe('function')
    await app.api.close()
  })

  it('the page side is plain, frozen and live: tasks, navigation and pages declared after it opened show', () => {
    const app = new Svc({ title: 'live', log_level: 'fatal' })
    const side = pageSideOf(app)
    expect(Object.getOwnPropertySymbols(side)).toEqual([])
    expect(Object.isFrozen(side)).toBe(true)
    expect(side.tasks?.size).toBe(0)
    expect(side.navigationPosition).toBe('sidebar')
    expect(side.navigation).toBeNull()
    expect(side.identity).toBeNull()
    app.page('/', () => undefined)
    app.task('sum', () => 1)
    const nav = (): string[] => ['/']
    app.navigation(nav, { position: 'top' })
    expect(side.pages.map((p) => p.path)).toEqual(['/'])
    expect(side.tasks?.has('sum')).toBe(true)
    expect(side.navigation).toBe(nav)
    expect(side.navigationPosition).toBe('top')
    expect(side.settings).toBe(app.settings)
    expect(pageSideOf(app)).toBe(side)
  })
})

describe('one brand check for "is this an Svc app"', () => {
  it('holds across two copies of svc (an app that imported svc from another path)', () => {
    const built = new BuiltSvc({ title: 'built', log_level: 'fatal' })
    const source = new Svc({ title: 'source', log_level: 'fatal' })
    expect(built).not.toBeInstanceOf(Svc)
    expect(isSvc(built)).toBe(true)
    expect(builtIsSvc(source)).toBe(true)
    built.page('/from-built', () => undefined)
    // Each copy declares its own symbol type; at run time the key is the one Symbol.for('svc.app').
    expect(pageSideOf(built as unknown as SvcApp).pages.map((p) => p.path)).toEqual(['/from-built'])
  })

  it('refuses look-alikes: the old `true` brand, a plain object, null', () => {
    for (const value of [{ [Symbol.for('svc.app')]: true }, { pages: [], settings: {} }, null, 'app']) expect(isSvc(value)).toBe(false)
  })

  it('the target loader takes an app importing svc by its package name (the built copy) and refuses a look-alike', async () => {
    const { app } = await loadTarget('test/fixtures/app-hostile-input.ts:app')
    expect(app).not.toBeInstanceOf(Svc)
    expect(pageSideOf(app).settings.title).toBe('Hostile input')
    await expect(loadTarget('test/fixtures/app-not-svc.ts:app')).rejects.toMatchObject({ code: 'SVC_ERR_TARGET_NOT_SVC' })
  })
})
