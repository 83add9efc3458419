import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createReloadEventFilter, reloadIgnore, reloadsOn, TRANSIENT_FILE_MS } from '../../../state/reload-ignore.js'

describe('reloadIgnore', () => {
  const app = '/srv/app'
  const ignored = reloadIgnore(app, { files: [join(app, '.svc.pid'), join(app, '.svc.pid.state.json'), join(app, 'run', 'my.lock')], dirs: [join(app, '.cache')] })

  it("ignores svc's own files and the temp files written for them", () => {
    for (const p of [
      '.svc.pid',
      '.svc.pid.state.json',
      '..svc.pid.4242.0a1b2c3d.tmp',
      '..svc.pid.state.json.4242.deadbeef.tmp',
      'run/my.lock',
      'run/.my.lock.17.00ff00ff.tmp',
      '.cache/v8/abc',
      '.cache',
    ]) {
      expect(ignored(join(app, p)), p).toBe(true)
    }
  })

  it('ignores folders without app source and editor scratch files', () => {
    for (const p of ['node_modules/x/index.js', '.git/HEAD', 'dist/app.js', '.svc/x', 'app.ts~', '.app.ts.swp', '.#app.ts', '#app.ts#', '4913', 'server.log']) {
      expect(ignored(join(app, p)), p).toBe(true)
    }
  })

  it('matches folder names below the app folder only', () => {
    const inDist = reloadIgnore('/srv/dist/app', { files: [], dirs: [] })
    expect(inDist('/srv/dist/app/app.ts')).toBe(false)
    expect(inDist('/srv/dist/app/dist/app.js')).toBe(true)
  })

  it("still sees the app's files, also ones named like svc's in another folder", () => {
    for (const p of ['app.ts', 'pages/home.ts', 'run/other.ts', 'sub/my.lock', '.my.lock.17.00ff00ff.tmp', 'data.json']) {
      expect(ignored(join(app, p)), p).toBe(false)
    }
  })
})

describe('createReloadEventFilter', () => {
  it('counts file events, not folder events', () => {
    const counts = createReloadEventFilter(() => 0)
    expect(['add', 'change', 'unlink', 'addDir', 'unlinkDir'].map((e) => counts(e, `/srv/app/${e}`))).toEqual([true, true, true, false, false])
  })

  it("does not count the removal of a temp file renamed over the saved one (sed -i, editors' safe save)", () => {
    let now = 1_000
    const counts = createReloadEventFilter(() => now)
    expect(counts('add', '/srv/app/sedX1')).toBe(true)
    expect(counts('change', '/srv/app/app.ts')).toBe(true)
    now += 105 // chokidar reports the temp name's removal after its atomic-write delay
    expect(counts('unlink', '/srv/app/sedX1')).toBe(false)
  })

  it('counts the removal of a file that existed before, or long enough', () => {
    let now = 1_000
    const counts = createReloadEventFilter(() => now)
    expect(counts('unlink', '/srv/app/old.ts')).toBe(true)
    counts('add', '/srv/app/new.ts')
    now += TRANSIENT_FILE_MS
    expect(counts('unlink', '/srv/app/new.ts')).toBe(true)
  })
})

describe('reloadsOn', () => {
  const app = '/srv/app'
  const reloads = reloadsOn([join(app, '.svc', 'secrets.json')])

  it('reloads on what Node and svc import: TypeScript, JavaScript, JSON', () => {
    for (const p of ['app.ts', 'pages/home.tsx', 'lib/a.mts', 'lib/b.cts', 'x.js', 'x.jsx', 'x.mjs', 'x.cjs', 'data.json', 'svc.config.json', '.svc/secrets.json']) {
      expect(reloads(join(app, p)), p).toBe(true)
    }
  })

  it('not on data, images, docs or logs the app reads or writes', () => {
    for (const p of ['logo.png', 'README.md', 'orders.csv', 'out.log', 'notes.txt', 'db.sqlite', 'sedX1', 'app.ts.bak']) {
      expect(reloads(join(app, p)), p).toBe(false)
    }
  })

  it('walks down to the secrets file in the ignored .svc folder, and nothing else there', () => {
    const ignored = reloadIgnore(app, { files: [], dirs: [] }, [join(app, '.svc', 'secrets.json')])
    expect(ignored(join(app, '.svc'))).toBe(false)
    expect(ignored(join(app, '.svc', 'secrets.json'))).toBe(false)
    expect(ignored(join(app, '.svc', 'other.json'))).toBe(true)
    expect(reloadIgnore(app, { files: [], dirs: [] }, ['/elsewhere/.svc/secrets.json'])(join(app, '.svc'))).toBe(true)
  })
})
