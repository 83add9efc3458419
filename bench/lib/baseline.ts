import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { REPO } from './servers.js'

/**
 * Another commit of svc built next to this checkout, to measure against in the same run: its
 * files from `git archive <ref>` in a temp folder (kept per commit, so a second run reuses the
 * build), this checkout's node_modules linked in, `npm run build`'s steps run there. `extra`
 * files of this checkout (bench fixtures the old commit lacks) are copied in.
 */
export interface Baseline {
  ref: string
  commit: string
  root: string
  bin: string
}

export function buildBaseline(ref: string, extra: string[] = []): Baseline {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: REPO, encoding: 'utf8' }).trim()
  const root = join(tmpdir(), `svc-bench-baseline-${commit.slice(0, 12)}`)
  if (!existsSync(join(root, 'dist', 'src', 'cli', 'main.js')) || !existsSync(join(root, 'dist', 'client'))) {
    rmSync(root, { recursive: true, force: true })
    mkdirSync(root, { recursive: true })
    const archive = spawnSync('sh', ['-c', `git archive ${commit} | tar -x -C ${JSON.stringify(root)}`], { cwd: REPO, stdio: 'inherit' })
    if (archive.status !== 0) throw new Error(`git archive ${ref} failed`)
    symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir')
    for (const step of [['node_modules/.bin/tsc', '-p', 'tsconfig.build.json'], ['scripts/build-client.mjs'], ['scripts/bundle-zod.mjs']]) {
      const [file, ...args] = step
      const cmd = file!.endsWith('.mjs') ? [process.execPath, join(root, file!), ...args] : [join(root, file!), ...args]
      const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
      if (r.status !== 0) throw new Error(`building ${ref} (${commit.slice(0, 12)}) in ${root}: ${cmd.join(' ')} exited ${r.status}`)
    }
  }
  // A build kept from an earlier run may link the node_modules of a checkout since removed.
  if (!existsSync(join(root, 'node_modules'))) {
    rmSync(join(root, 'node_modules'), { force: true })
    symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir')
  }
  for (const file of extra) {
    mkdirSync(dirname(join(root, file)), { recursive: true })
    copyFileSync(join(REPO, file), join(root, file))
  }
  return { ref, commit, root, bin: join(root, 'bin', 'svc.js') }
}

/** One build a bench compares: its `bin/svc.js` (this checkout's when absent) and its target. */
export interface BenchBuild {
  name: string
  bin?: string
  target: string
}

/**
 * This checkout's build and, unless `ref` is `none`, the baseline `ref` built beside it with
 * `fixture` copied in (bench/fixtures files the old commit may lack), each serving `fixture:app`.
 */
export function thisAndBaseline(ref: string, fixture: string): BenchBuild[] {
  const builds: BenchBuild[] = [{ name: 'this build', target: `${fixture}:app` }]
  if (ref === 'none') return builds
  process.stdout.write(`building the baseline (${ref}) …`)
  const base = buildBaseline(ref, [fixture])
  process.stdout.write(` ${base.commit.slice(0, 12)} in ${base.root}\n`)
  builds.push({ name: `baseline ${ref} (${base.commit.slice(0, 8)})`, bin: base.bin, target: `${base.root}/${fixture}:app` })
  return builds
}
