import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, rm, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { execa } from 'execa'
import { descendants, isAlive, REPO, SVC_BIN, waitGone } from './svc-process.js'

/**
 * Helpers for tests that use svc the way a user does: packed with `npm pack`, installed into a
 * fresh project with npm, run through npm scripts and `npx`.
 */

/** The environment for npm in a user's project: no SVC_* settings, no npm_* of the npm running vitest, no colours. */
export function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('SVC_') && !/^npm_/i.test(k) && k !== 'PUBLIC_BASE_URL' && k !== 'NODE_OPTIONS' && k !== 'FORCE_COLOR' && k !== 'VITEST' && !k.startsWith('VITEST_')) env[k] = v
  }
  return { ...env, NO_COLOR: '1', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...extra }
}

/** Flags for every `npm install` of these tests: the registry is reachable, the cache is warm. */
export const NPM_INSTALL_FLAGS = ['--no-audit', '--no-fund', '--prefer-offline']

/**
 * A project made by `svc new` in `work`, without an install: its dependencies are links to this
 * repository (svc itself: its built types and code in dist/) and to the repository's copies of
 * `packages` (default: the template's typescript, vitest and @types/node). Fast enough for tests
 * that need a project's shape, not npm's install. Returns the project's folder.
 */
export async function linkedNewProject(work: string, packages: readonly string[] = ['typescript', 'vitest', '@types/node']): Promise<string> {
  await sh(`node ${SVC_BIN} new my-app --svc-spec file:${REPO}`, work)
  const project = join(work, 'my-app')
  const modules = join(project, 'node_modules')
  await symlinkInto(modules, 'svc', REPO)
  for (const dep of packages) await symlinkInto(modules, dep, join(REPO, 'node_modules', dep))
  return project
}

async function symlinkInto(modules: string, name: string, target: string): Promise<void> {
  const link = join(modules, name)
  await mkdir(join(link, '..'), { recursive: true })
  await symlink(target, link)
}

/** `npm pack` the built repository into `dest` (no `prepare`: dist/ is already built); returns the tarball path. */
export async function packSvc(dest: string): Promise<string> {
  if (!existsSync(`${REPO}dist/src/cli/main.js`)) throw new Error('dist/ is missing: run "npm run build" before the fresh-project tests')
  const res = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dest], { cwd: REPO, env: userEnv(), extendEnv: false })
  const [info] = JSON.parse(res.stdout) as Array<{ filename: string }>
  return `${dest}/${info!.filename}`
}

/** Run a shell command line in `cwd` as a user would; fails the test with its output when it exits non-zero. */
export async function sh(command: string, cwd: string, env: Record<string, string> = userEnv(), timeoutMs = 120_000): Promise<string> {
  const res = await execa('bash', ['-e', '-o', 'pipefail', '-c', command], { cwd, env, extendEnv: false, reject: false, timeout: timeoutMs, all: true })
  if (res.exitCode !== 0) throw new Error(`\`${command}\` in ${cwd} exited ${res.exitCode ?? res.signal}${res.timedOut ? ' (timed out)' : ''}:\n${res.all}`)
  return res.all
}

export interface Server {
  /** `http://127.0.0.1:<port>` from the listening line. */
  origin: string
  output(): string
  /** Ctrl-C (SIGINT to the process group, as a terminal does); throws if a process of the tree is left. */
  stop(): Promise<void>
}

/**
 * Start a long-running command line (`npm run dev`, `npx svc run ...`) in its own process group,
 * wait for svc's `listening on` line, and hand back its origin.
 */
export async function startServer(command: string, cwd: string, env: Record<string, string>, timeoutMs = 60_000): Promise<Server> {
  const proc = spawn('bash', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let wake: () => void = () => {}
  const onData = (chunk: Buffer) => {
    out += chunk.toString()
    wake()
  }
  proc.stdout.on('data', onData)
  proc.stderr.on('data', onData)
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
  const pid = proc.pid!
  const known = new Set<number>([pid])
  const stop = async (): Promise<void> => {
    for (const p of descendants(pid)) known.add(p)
    try {
      process.kill(-pid, 'SIGINT')
    } catch {
      // the group is gone already
    }
    await Promise.race([exited, delay(20_000)])
    const left = await waitGone([...known], 10_000)
    for (const p of left) {
      try {
        process.kill(p, 'SIGKILL')
      } catch {
        // gone
      }
    }
    if (left.length > 0) throw new Error(`\`${command}\`: processes left after Ctrl-C: ${left.join(', ')}\n${out}`)
  }
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const m = /svc: listening on (http:\/\/[^/\s]+)\//.exec(out)
    if (m) {
      for (const p of descendants(pid)) known.add(p)
      return { origin: m[1]!, output: () => out, stop }
    }
    if (!isAlive(pid) || Date.now() > deadline) {
      await stop().catch(() => {})
      throw new Error(`\`${command}\` in ${cwd} did not print "svc: listening on" within ${timeoutMs} ms:\n${out}`)
    }
    await Promise.race([new Promise<void>((r) => (wake = r)), exited, delay(Math.min(500, deadline - Date.now()))])
  }
}

/**
 * Remove what `npx --package <tarball>` installed into npm's cache (`<cache>/_npx/<hash>/`): each
 * test run packs to a new path, so each run would otherwise leave a new copy of svc behind.
 */
export async function removeNpxInstalls(tarball: string): Promise<void> {
  const cache = (await execa('npm', ['config', 'get', 'cache'], { env: userEnv(), extendEnv: false })).stdout.trim()
  const root = join(cache, '_npx')
  if (!existsSync(root)) return
  for (const entry of await readdir(root)) {
    let pkg: { _npx?: { packages?: string[] } }
    try {
      pkg = JSON.parse(await readFile(join(root, entry, 'package.json'), 'utf8')) as typeof pkg
    } catch {
      continue
    }
    if (pkg._npx?.packages?.includes(tarball)) await rm(join(root, entry), { recursive: true, force: true })
  }
}
