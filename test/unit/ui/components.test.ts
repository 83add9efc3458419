import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { Svc } from '../../../src/app.js'
import { declareComponent, folderComponent, type Component } from '../../../src/ui/components.js'
import { createUiTestHandle } from '../../../src/testing/app-test.js'
import type { ComponentProps } from '../../../src/ui/wire/elements.js'
import { appPageCsp } from '../../../src/ui/server/page-csp.js'

let dir: string
const apps: Svc[] = []
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-component-'))
  await mkdir(join(dir, 'assets'))
  await writeFile(join(dir, 'index.html'), '<!doctype html><script type="module" src="./assets/app.js"></script>')
  await writeFile(join(dir, 'assets', 'app.js'), 'console.log(1)')
})
afterEach(async () => {
  for (const app of apps.splice(0)) await app.api.close()
  await rm(dir, { recursive: true, force: true })
})

let n = 0
const uniqueName = () => `comp-${process.pid}-${++n}`

describe('declareComponent', () => {
  it('a folder: a versioned app path that changes with the content, and only the files found are served', async () => {
    const name = uniqueName()
    const c = declareComponent(name, { path: pathToFileURL(dir) })
    expect(c.src).toMatch(new RegExp(`^/_stcore/component/${name}/[0-9a-f]{16}/index\\.html$`))
    const files = folderComponent(name)!
    expect(files.file('assets/app.js')).toBe(join(dir, 'assets', 'app.js'))
    expect(files.file('../index.html')).toBeUndefined()
    await writeFile(join(dir, 'assets', 'app.js'), 'console.log(2)')
    const again = declareComponent(name, { path: dir })
    expect(again.src).not.toBe(c.src)
  })

  it('refuses bad names, relative paths, both or neither source, a folder without index.html, a non-http URL', async () => {
    expect(() => declareComponent('Bad Name', { path: dir })).toThrow(/1-64 lower-case letters/)
    expect(() => declareComponent(uniqueName(), { path: 'relative/dist' })).toThrow(/path must be absolute.*import\.meta\.url/)
    expect(() => declareComponent(uniqueName(), { path: dir, url: 'http://x' } as never)).toThrow(/exactly one of path/)
    expect(() => declareComponent(uniqueName(), {} as never)).toThrow(/exactly one of path/)
    expect(() => declareComponent(uniqueName(), { url: 'javascript:alert(1)' })).toThrow(/must be http\(s\)/)
    const empty = await mkdtemp(join(tmpdir(), 'svc-component-empty-'))
    try {
      expect(() => declareComponent(uniqueName(), { path: empty }).src).toThrow(/has no index\.html; build the component first/)
    } finally {
      await rm(empty, { recursive: true })
    }
    const name = uniqueName()
    declareComponent(name, { path: dir })
    expect(() => declareComponent(name, { path: join(dir, 'assets') })).toThrow(/two components are named/)
  })

  it("a URL component's origin joins the pages' frame-src; folder components need nothing more than 'self'", () => {
    const settings = new Svc({ title: 'csp', log_level: 'fatal' }).settings
    declareComponent(uniqueName(), { url: 'http://127.0.0.1:5199/app/' })
    expect(appPageCsp(settings)).toMatch(/frame-src 'self'[^;]* http:\/\/127\.0\.0\.1:5199(;|$)/)
  })

  it('a URL component keeps its URL; values are size-bounded and checked by the schema', () => {
    const c = declareComponent(uniqueName(), { url: 'http://127.0.0.1:5173/', value: z.number().int().max(5), maxValueBytes: 20 })
    expect(c.src).toBe('http://127.0.0.1:5173/')
    expectTypeOf(c).toEqualTypeOf<Component<Record<string, unknown>, number>>()
    expect(c.parseValue(3)).toBe(3)
    expect(() => c.parseValue(9)).toThrow(/invalid value: Too big/)
    expect(() => c.parseValue('x'.repeat(30))).toThrow(/larger than 20 bytes/)
  })
})

describe('st.component (test handle)', () => {
  function app() {
    const a = new Svc({ title: 'c', log_level: 'fatal' })
    apps.push(a)
    const rating = declareComponent(uniqueName(), {
      path: dir,
      args: z.object({ max: z.number().int().min(1) }),
      value: z.number().int().min(0).max(10),
    })
    const changes: number[] = []
    a.page('/', (st) => {
      const max = st.numberInput('max', { value: 5, key: 'max' })
      const keyed = st.component(rating, { max }, { key: 'stars', default: 0, height: 40, onChange: (v) => void changes.push(v as number) })
      expectTypeOf(keyed).toEqualTypeOf<number>()
      const loose = st.component(rating, { max })
      expectTypeOf(loose).toEqualTypeOf<number | null>()
      st.text(`keyed ${keyed} loose ${String(loose)}`)
    })
    return { a, rating, changes }
  }

  it('emits a component node with its args, value and src; values come back like widget values, checked', async () => {
    const { a, rating, changes } = app()
    const at = await createUiTestHandle(a).run()
    const [keyed, loose] = at.get('component')
    expect(keyed!.props).toMatchObject({ name: rating.name, src: rating.src, args: { max: 5 }, value: 0, height: 40, sameOrigin: false, maxValueBytes: 65536, key: 'stars' } satisfies Partial<ComponentProps>)
    expect(loose!.props.value).toBeNull()
    await at.send({ v: 1, type: 'widget', id: keyed!.id, value: 4 })
    expect(at.text[0]!.value).toBe('keyed 4 loose null')
    expect(changes).toEqual([4])
    expect(at.sessionState.stars).toBe(4)
    // Refused by the schema or the size bound: dropped, no rerun, the last good value stays.
    await at.send({ v: 1, type: 'widget', id: keyed!.id, value: 11 })
    await at.send({ v: 1, type: 'widget', id: keyed!.id, value: 'x'.repeat(70_000) })
    expect(at.text[0]!.value).toBe('keyed 4 loose null')
    expect(changes).toEqual([4])
    await expect(at.widget('component', 'stars').setValue(99).run()).rejects.toThrow(/invalid value: Too big/)
  })

  it('with a key the value survives new args; without one it starts again (a new component)', async () => {
    const { a } = app()
    const at = await createUiTestHandle(a).run()
    const [keyed, loose] = at.get('component')
    await at.send({ v: 1, type: 'widget', id: keyed!.id, value: 3 })
    await at.send({ v: 1, type: 'widget', id: loose!.id, value: 2 })
    expect(at.text[0]!.value).toBe('keyed 3 loose 2')
    await at.numberInput('max').setValue(7).run()
    expect(at.text[0]!.value).toBe('keyed 3 loose null')
    expect(at.get('component')[0]!.props.args).toEqual({ max: 7 })
  })

  it('args the schema refuses, or that are not JSON, are a page error naming the component', async () => {
    const a = new Svc({ title: 'c', log_level: 'fatal' })
    apps.push(a)
    const strict = declareComponent(uniqueName(), { path: dir, args: z.object({ max: z.number() }) })
    const loose = declareComponent(uniqueName(), { path: dir })
    a.page('/', (st) => void st.component(strict, { max: 'five' } as never))
    a.page('/fn', (st) => void st.component(loose, { onClick: () => 1 }))
    a.page('/bad', (st) => void st.component({} as never, {}))
    const at = await createUiTestHandle(a).run()
    expect(String(at.exception[0]!.props.message)).toMatch(new RegExp(`st.component\\(${strict.name}\\): invalid args: max: Invalid input: expected number`))
    const fn = await createUiTestHandle(a, { target: '/fn' }).run()
    expect(String(fn.exception[0]!.props.message)).toMatch(/args must be JSON.*found a function/)
    const bad = await createUiTestHandle(a, { target: '/bad' }).run()
    expect(String(bad.exception[0]!.props.message)).toMatch(/pass a component returned by declareComponent\(\)/)
  })
})
