import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runSvcCli, tempDir } from '../helpers/cli-run.js'
import { REPO } from '../helpers/svc-process.js'

const FILES = ['.gitignore', 'README.md', 'app.test.ts', 'app.ts', 'package.json', 'tsconfig.json']

interface ProjectPackage {
  name: string
  type: string
  scripts: Record<string, string>
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
}

async function readPackage(dir: string): Promise<ProjectPackage> {
  return JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as ProjectPackage
}

describe('svc new', () => {
  it('creates the project in a new folder and prints the next steps', async () => {
    const cwd = await tempDir('svc-new-')
    const res = await runSvcCli(['new', 'my-app'], { cwd })
    expect(res.stderr).toBe('')
    expect(res.code).toBe(0)
    const dir = join(cwd, 'my-app')
    expect((await readdir(dir)).sort()).toEqual(FILES)

    const pkg = await readPackage(dir)
    expect(pkg.name).toBe('my-app')
    expect(pkg.type).toBe('module')
    expect(pkg.scripts).toEqual({ dev: 'svc dev --reload', start: 'svc run', test: 'vitest run', typecheck: 'tsc --noEmit' })
    // Run from this checkout: the project depends on the checkout itself, not on the
    // unrelated "svc" of the public registry.
    expect(pkg.dependencies.svc).toBe(`file:${REPO.replace(/\/$/, '')}`)
    expect(Object.keys(pkg.devDependencies).sort()).toEqual(['@types/node', 'typescript', 'vitest'])
    // The types of the Node the project was made with (CI runs this on Node 20 and Node 24).
    expect(pkg.devDependencies['@types/node']).toBe(`^${process.versions.node.split('.')[0]}.0.0`)

    const tsconfig = JSON.parse(await readFile(join(dir, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> }
    expect(tsconfig.compilerOptions.strict).toBe(true)
    expect(tsconfig.compilerOptions.moduleResolution).toBe('NodeNext')
    const gitignore = await readFile(join(dir, '.gitignore'), 'utf8')
    for (const entry of ['node_modules/', 'dist/', '.svc.pid*', '.svc/']) expect(gitignore.split('\n')).toContain(entry)
    const app = await readFile(join(dir, 'app.ts'), 'utf8')
    expect(app).toContain("new Svc({ title: 'my-app' })")
    expect(app).toContain('client.call(hello')
    const test = await readFile(join(dir, 'app.test.ts'), 'utf8')
    expect(test).toContain("from 'svc/testing'")
    expect(test).toContain('client.ui(')
    expect(await readFile(join(dir, 'README.md'), 'utf8')).toMatch(/^# my-app\n/)

    expect(res.stdout).toContain(`Created my-app in ${dir}`)
    expect(res.stdout).toMatch(/Next steps:\n {2}cd my-app\n {2}npm install\n {2}npm run dev\n/)
  })

  it('defaults to the current folder, named after it; no cd in the next steps', async () => {
    const cwd = join(await tempDir('svc-new-'), 'inventory-tool')
    await mkdir(cwd)
    await mkdir(join(cwd, '.git'))
    const res = await runSvcCli(['new'], { cwd })
    expect(res.code).toBe(0)
    expect((await readPackage(cwd)).name).toBe('inventory-tool')
    expect(res.stdout).toMatch(/Next steps:\n {2}npm install\n/)
  })

  it('refuses a folder that is not empty (exit 2, names the folder and the fix); --force writes into it', async () => {
    const cwd = await tempDir('svc-new-')
    const dir = join(cwd, 'busy')
    await mkdir(dir)
    await writeFile(join(dir, 'notes.txt'), 'keep me\n')
    const refused = await runSvcCli(['new', 'busy'], { cwd })
    expect(refused.code).toBe(2)
    expect(refused.stdout).toBe('')
    expect(refused.stderr).toContain(`svc new: ${dir} is not empty (notes.txt)`)
    expect(refused.stderr).toContain('--force')
    expect(await readdir(dir)).toEqual(['notes.txt'])

    const forced = await runSvcCli(['new', 'busy', '--force'], { cwd })
    expect(forced.code).toBe(0)
    expect((await readdir(dir)).sort()).toEqual([...FILES, 'notes.txt'].sort())
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('keep me\n')
  })

  it('refuses a folder name that is not an npm name (exit 2, suggests --name); --name fixes it', async () => {
    const cwd = await tempDir('svc-new-')
    const bad = await runSvcCli(['new', 'My Tool'], { cwd })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('svc new: the folder name "My Tool" is not a valid npm package name (npm names are lowercase); pass --name my-tool')
    expect(existsSync(join(cwd, 'My Tool'))).toBe(false)

    const named = await runSvcCli(['new', 'My Tool', '--name', 'my-tool'], { cwd })
    expect(named.code).toBe(0)
    expect(named.stdout).toContain(`cd 'My Tool'`)
    expect((await readPackage(join(cwd, 'My Tool'))).name).toBe('my-tool')

    const badFlag = await runSvcCli(['new', 'x', '--name', '_private'], { cwd })
    expect(badFlag.code).toBe(2)
    expect(badFlag.stderr).toContain('--name "_private" is not a valid npm package name')
  })

  it('--svc-spec sets the dependency as given', async () => {
    const cwd = await tempDir('svc-new-')
    const res = await runSvcCli(['new', 'app', '--svc-spec', 'github:acme/svc#v0.1.0'], { cwd })
    expect(res.code).toBe(0)
    expect((await readPackage(join(cwd, 'app'))).dependencies.svc).toBe('github:acme/svc#v0.1.0')
    expect(res.stdout).toContain('svc dependency: "github:acme/svc#v0.1.0"')

    const empty = await runSvcCli(['new', 'other', '--svc-spec', ' '], { cwd })
    expect(empty.code).toBe(2)
    expect(empty.stderr).toContain('--svc-spec is empty')
  })

  it('--help documents the command, and svc --help lists it', async () => {
    const cwd = await tempDir('svc-new-')
    const help = await runSvcCli(['new', '--help'], { cwd })
    expect(help.code).toBe(0)
    for (const text of ['svc new [dir]', '--force', '--name', '--svc-spec', 'app.test.ts']) expect(help.stdout).toContain(text)
    const all = await runSvcCli(['--help'], { cwd })
    expect(all.stdout).toContain('svc new')
    expect(await readdir(cwd)).toEqual([])
  })
})
