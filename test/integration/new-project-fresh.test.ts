import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execa } from 'execa'
import { NPM_INSTALL_FLAGS, packSvc, removeNpxInstalls, sh, startServer, userEnv, type Server } from '../helpers/fresh-project.js'
import { PageClient } from '../helpers/ui-sidecar.js'

/**
 * A project made by `svc new` works as shipped: packed svc, `npm install`, then its own
 * `npm test`, `npm run typecheck` and `npm run dev` as a user runs them. One pack and one
 * install for the whole file.
 */
const INSTALL_MS = 150_000

describe('a fresh project from svc new', () => {
  let work: string
  let tarball: string
  let project: string
  const servers: Server[] = []

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'svc-fresh-'))
    tarball = await packSvc(work)
    project = join(work, 'my-app')
    // As docs/quickstart.md shows it; the default svc spec is the tarball npx installed.
    await sh(`npx --yes --package ${tarball} svc new my-app`, work, userEnv(), INSTALL_MS)
    await sh(`npm install ${NPM_INSTALL_FLAGS.join(' ')}`, project, userEnv(), INSTALL_MS)
  }, 2 * INSTALL_MS)

  afterAll(async () => {
    const errors: unknown[] = []
    for (const s of servers.splice(0)) await s.stop().catch((err: unknown) => errors.push(err))
    await removeNpxInstalls(tarball)
    await rm(work, { recursive: true, force: true })
    if (errors.length > 0) throw errors[0]
  }, 60_000)

  it('svc new depends on the tarball it was installed from (through npx, and in the project)', async () => {
    const first = JSON.parse(await readFile(join(project, 'package.json'), 'utf8')) as { dependencies: { svc: string } }
    expect(first.dependencies.svc).toBe(`file:${tarball}`)
    await sh('npx svc new ../second', project)
    const pkg = JSON.parse(await readFile(join(work, 'second', 'package.json'), 'utf8')) as { dependencies: { svc: string } }
    expect(pkg.dependencies.svc).toBe(`file:${tarball}`)
  })

  it('npm test passes', async () => {
    const out = await sh('npm test', project, userEnv(), 60_000)
    expect(out).toMatch(/Tests\s+4 passed/)
  }, 70_000)

  it('npm run typecheck passes', async () => {
    await sh('npm run typecheck', project, userEnv(), 60_000)
  }, 70_000)

  it("renaming the route's query parameter fails npm run typecheck at the page that uses it, naming the parameter", async () => {
    const file = join(project, 'app.ts')
    const original = await readFile(file, 'utf8')
    const renamed = original.replace('querystring: z.object({ name:', 'querystring: z.object({ who:').replace('req.query.name', 'req.query.who')
    expect(renamed.match(/who/g)).toHaveLength(2)
    await writeFile(file, renamed)
    try {
      const res = await execa('npm', ['run', 'typecheck'], { cwd: project, env: userEnv(), extendEnv: false, reject: false, all: true, timeout: 60_000 })
      expect(res.exitCode, res.all).not.toBe(0)
      const line = renamed.split('\n').findIndex((l) => l.includes('await client.call(hello')) + 1
      expect(res.all).toMatch(new RegExp(`app\\.ts\\(${line},\\d+\\): error TS2353: Object literal may only specify known properties, and 'name' does not exist in type '\\{ who\\?: string \\| undefined; \\}'`))
    } finally {
      await writeFile(file, original)
    }
    await sh('npm run typecheck', project, userEnv(), 60_000)
  }, 140_000)

  it('npm run dev serves the page and the API through the gateway; Ctrl-C leaves no process', async () => {
    const server = await startServer('npm run dev', project, userEnv({ SVC_GATEWAY_PORT: '0' }))
    servers.push(server)
    const api = await fetch(`${server.origin}/api/hello?name=Ada`)
    expect(api.status).toBe(200)
    expect(await api.json()).toEqual({ message: 'Hello, Ada!' })

    const shell = await fetch(`${server.origin}/`)
    expect(shell.status).toBe(200)
    expect(await shell.text()).toContain('<title>my-app</title>')

    // The page itself runs over the page WebSocket, and calls the API through its client.
    const page = await new PageClient(`${server.origin.replace('http', 'ws')}/_stcore/stream`).open()
    try {
      page.send({ type: 'hello', sessionId: null, path: '/', query: '' })
      const render = await page.render(15_000)
      expect(JSON.stringify(render.main)).toContain('Hello, world!')
    } finally {
      await page.close()
    }

    servers.splice(servers.indexOf(server), 1)
    await server.stop()
  }, 90_000)
})
