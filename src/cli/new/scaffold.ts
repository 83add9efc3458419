import { existsSync, readdirSync, statSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { basename, isAbsolute, join, relative, resolve } from 'node:path'
import { packageRoot } from '../../internal/package-root.js'
import { checkProjectName, suggestName } from './project-name.js'
import { defaultSvcSpec, type SvcSpec } from './svc-spec.js'

/**
 * `svc new`: copy `templates/new/` of the svc package into a folder, with the project name and
 * the svc dependency filled in. Usage problems come back as a message (exit 2), never half a
 * project: everything is checked before the first file is written.
 */
export interface NewOptions {
  /** The folder as the user typed it (default "."). */
  dir: string
  cwd: string
  force: boolean
  name: string | undefined
  svcSpec: string | undefined
}

export type NewOutcome = { ok: true; summary: string } | { ok: false; message: string }

/** Template file → file in the project (npm pack drops files named .gitignore, so it ships without the dot). */
const FILES: ReadonlyArray<readonly [string, string]> = [
  ['package.json', 'package.json'],
  ['app.ts', 'app.ts'],
  ['app.test.ts', 'app.test.ts'],
  ['tsconfig.json', 'tsconfig.json'],
  ['gitignore', '.gitignore'],
  ['README.md', 'README.md'],
]

/** Entries that do not make a folder "in use": a fresh `git init` or clone. */
const IGNORED_ENTRIES = new Set(['.git'])

export async function scaffoldProject(opts: NewOptions): Promise<NewOutcome> {
  const target = resolve(opts.cwd, opts.dir)
  if (existsSync(target)) {
    if (!statSync(target).isDirectory()) return usage(`${target} exists and is not a folder; pick another path, e.g. svc new my-app`)
    const used = readdirSync(target).filter((e) => !IGNORED_ENTRIES.has(e))
    if (used.length > 0 && !opts.force) {
      const shown = used.slice(0, 5).join(', ') + (used.length > 5 ? ', ...' : '')
      return usage(
        `${target} is not empty (${shown}); name a new folder (svc new <new-folder>), or pass --force to write the template files into it (files with the same names are overwritten)`,
      )
    }
  }

  const rawName = opts.name ?? basename(target)
  const checked = checkProjectName(rawName)
  if (!checked.ok) {
    const from = opts.name === undefined ? `the folder name ${JSON.stringify(rawName)}` : `--name ${JSON.stringify(rawName)}`
    return usage(`${from} is not a valid npm package name (${checked.reason}); pass --name ${suggestName(rawName)}, or use a folder with such a name`)
  }
  if (opts.svcSpec !== undefined && opts.svcSpec.trim() === '') {
    return usage('--svc-spec is empty; pass an npm dependency spec such as "^0.1.0", "file:../svc-0.1.0.tgz" or "github:owner/svc"')
  }

  const root = packageRoot()
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string }
  const svc: SvcSpec = opts.svcSpec === undefined ? defaultSvcSpec(root, pkg.version) : { spec: opts.svcSpec.trim(), source: 'unknown' }
  const templates = join(root, 'templates', 'new')

  await mkdir(target, { recursive: true })
  for (const [from, to] of FILES) {
    const text = await readFile(join(templates, from), 'utf8')
    await writeFile(join(target, to), from === 'package.json' ? projectPackageJson(text, checked.name, svc.spec) : text.replaceAll('{{name}}', checked.name))
  }
  return { ok: true, summary: summary(opts, target, checked.name, svc) }
}

/**
 * The project's package.json. `allowScripts` (npm 11.16+, enforced from npm 12) approves the
 * install scripts of svc's dependencies that have one (esbuild checks its binary, bufferutil
 * loads its prebuild), so `npm install` runs them without a warning. svc from a tarball or a
 * folder is built already: its `prepare` (svc's own build) is denied, keyed by the spec as npm keys
 * non-registry sources.
 */
export function projectPackageJson(template: string, name: string, svcSpec: string): string {
  const pkg = JSON.parse(template) as { name: string; dependencies: Record<string, string>; devDependencies: Record<string, string>; allowScripts: Record<string, boolean> }
  pkg.name = name
  pkg.dependencies.svc = svcSpec
  pkg.devDependencies['@types/node'] = typesNodeRange()
  if (svcSpec.startsWith('file:')) pkg.allowScripts[svcSpec] = false
  return JSON.stringify(pkg, null, 2) + '\n'
}

/** `@types/node` of the Node running `svc new` (its major): the project's types match the runtime it starts on. */
export function typesNodeRange(version: string = process.versions.node): string {
  return `^${version.split('.')[0]}.0.0`
}

function summary(opts: NewOptions, target: string, name: string, svc: SvcSpec): string {
  const where = relative(opts.cwd, target)
  const cd = where === '' ? [] : [`cd ${shellQuote(isAbsolute(opts.dir) || where.startsWith('..') ? target : where)}`]
  const steps = [...cd, 'npm install', 'npm run dev']
  return [
    `Created ${name} in ${target}: ${FILES.map(([, to]) => to).join(', ')}`,
    `svc dependency: "${svc.spec}"${SOURCES[svc.source]} (change it with --svc-spec)`,
    '',
    'Next steps:',
    ...steps.map((s) => `  ${s}`),
    '',
    'Then open http://127.0.0.1:8000/ (the page) and http://127.0.0.1:8000/api/hello (the API); npm test runs app.test.ts.',
    '',
  ].join('\n')
}

const SOURCES: Record<SvcSpec['source'], string> = {
  registry: ', the version running now, from its registry',
  tarball: ', the tarball or folder the running svc was installed from',
  checkout: ', the svc checkout running now',
  unknown: '',
}

function shellQuote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`
}

function usage(message: string): NewOutcome {
  return { ok: false, message }
}
