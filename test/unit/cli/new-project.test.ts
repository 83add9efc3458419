import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { checkProjectName, suggestName } from '../../../src/cli/new/project-name.js'
import { defaultSvcSpec } from '../../../src/cli/new/svc-spec.js'
import { projectPackageJson, typesNodeRange } from '../../../src/cli/new/scaffold.js'
import { readFileSync } from 'node:fs'

describe('svc new: @types/node', () => {
  it('follows the major of the Node that runs svc new', () => {
    expect(typesNodeRange('20.20.2')).toBe('^20.0.0')
    expect(typesNodeRange('22.12.0')).toBe('^22.0.0')
    expect(typesNodeRange('24.11.1')).toBe('^24.0.0')
  })
})

describe('svc new: project names', () => {
  it('accepts npm names, scoped ones included', () => {
    for (const name of ['my-app', 'app2', 'a.b_c~d', '@acme/portal']) expect(checkProjectName(name)).toEqual({ ok: true, name })
  })

  it('rejects what npm rejects, saying which rule', () => {
    expect(checkProjectName('My-App')).toEqual({ ok: false, reason: 'npm names are lowercase' })
    expect(checkProjectName('.hidden')).toMatchObject({ ok: false, reason: expect.stringContaining('cannot start with') })
    expect(checkProjectName('_x')).toMatchObject({ ok: false, reason: expect.stringContaining('cannot start with') })
    expect(checkProjectName('my app')).toMatchObject({ ok: false, reason: expect.stringContaining('spaces') })
    expect(checkProjectName('caf\u00e9')).toMatchObject({ ok: false, reason: expect.stringContaining('a-z, 0-9') })
    expect(checkProjectName('http')).toMatchObject({ ok: false, reason: expect.stringContaining('built-in') })
    expect(checkProjectName('node_modules')).toMatchObject({ ok: false })
    expect(checkProjectName('x'.repeat(215))).toMatchObject({ ok: false, reason: expect.stringContaining('214') })
  })

  it('suggests a valid name close to a bad one', () => {
    expect(suggestName('My Tool')).toBe('my-tool')
    expect(suggestName('_Draft (2)')).toBe('draft-2')
    expect(suggestName('!!!')).toBe('svc-app')
    expect(checkProjectName(suggestName('Überblick 2026')).ok).toBe(true)
  })
})

describe('svc new: the default svc dependency spec', () => {
  let root: string
  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'svc-spec-')))
  })
  afterEach(() => rm(root, { recursive: true, force: true }))

  async function installed(resolved: string | undefined): Promise<string> {
    const pkg = join(root, 'project', 'node_modules', 'svc')
    await mkdir(pkg, { recursive: true })
    const entry = resolved === undefined ? { version: '0.1.0' } : { version: '0.1.0', resolved }
    await writeFile(join(root, 'project', 'node_modules', '.package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { 'node_modules/svc': entry } }))
    return pkg
  }

  it('a checkout (not under node_modules) → file: the checkout', () => {
    expect(defaultSvcSpec(root, '0.1.0')).toEqual({ spec: `file:${root}`, source: 'checkout' })
  })

  it('a folder linked into node_modules → file: the real folder', async () => {
    await mkdir(join(root, 'project', 'node_modules'), { recursive: true })
    await mkdir(join(root, 'svc-checkout'))
    await symlink(join(root, 'svc-checkout'), join(root, 'project', 'node_modules', 'svc'))
    expect(defaultSvcSpec(join(root, 'project', 'node_modules', 'svc'), '0.1.0')).toEqual({ spec: `file:${join(root, 'svc-checkout')}`, source: 'checkout' })
  })

  it('installed from a tarball → file: the tarball, made absolute', async () => {
    const pkg = await installed('file:../dist/svc-0.1.0.tgz')
    expect(defaultSvcSpec(pkg, '0.1.0')).toEqual({ spec: `file:${join(root, 'dist', 'svc-0.1.0.tgz')}`, source: 'tarball' })
  })

  it('installed from a registry → ^version', async () => {
    const pkg = await installed('https://npm.acme.example/svc/-/svc-0.1.0.tgz')
    expect(defaultSvcSpec(pkg, '0.1.0')).toEqual({ spec: '^0.1.0', source: 'registry' })
  })

  it('no lockfile entry, or an unreadable lockfile → ^version', async () => {
    const pkg = await installed(undefined)
    expect(defaultSvcSpec(pkg, '0.1.0')).toEqual({ spec: '^0.1.0', source: 'unknown' })
    await writeFile(join(root, 'project', 'node_modules', '.package-lock.json'), '{ not json')
    expect(defaultSvcSpec(pkg, '0.1.0')).toEqual({ spec: '^0.1.0', source: 'unknown' })
  })
})

describe('svc new: install scripts (npm allowScripts)', () => {
  const template = readFileSync(new URL('../../../templates/new/package.json', import.meta.url), 'utf8')
  const allow = (spec: string): Record<string, boolean> => (JSON.parse(projectPackageJson(template, 'my-app', spec)) as { allowScripts: Record<string, boolean> }).allowScripts

  it('approves the dependencies whose install scripts svc relies on', () => {
    expect(allow('^0.1.0')).toEqual({ bufferutil: true, esbuild: true })
  })

  it('denies the build script of svc from a tarball or folder (it ships built), keyed by the spec as npm keys it', () => {
    expect(allow('file:/tmp/svc-0.1.0.tgz')).toEqual({ bufferutil: true, esbuild: true, 'file:/tmp/svc-0.1.0.tgz': false })
  })
})
