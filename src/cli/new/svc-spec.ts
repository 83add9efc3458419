import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { join, resolve, sep } from 'node:path'
import { z } from '../../internal/zod.js'

/**
 * The `svc` dependency spec a new project gets. The name `svc` on the public npm registry belongs
 * to another package, so `^<version>` is only right when this copy itself came from a registry
 * (ours, a private one): a copy installed from a tarball or a folder, or run from a checkout,
 * gets a `file:` spec pointing at that same tarball or folder.
 */
export interface SvcSpec {
  spec: string
  /** Where the spec comes from, for the summary `svc new` prints. */
  source: 'registry' | 'tarball' | 'checkout' | 'unknown'
}

/** The part of npm's lockfile (`node_modules/.package-lock.json`, `package-lock.json`) read here. */
const Lockfile = z.object({
  packages: z.record(z.string(), z.object({ resolved: z.string().optional() }).loose()),
}).loose()

export function defaultSvcSpec(packageRoot: string, version: string): SvcSpec {
  const real = realpathSync(packageRoot)
  const marker = `${sep}node_modules${sep}`
  const at = real.lastIndexOf(marker)
  if (at === -1) return { spec: `file:${real}`, source: 'checkout' }
  // .../project/node_modules/svc (or a nested node_modules): npm's lockfile of the project that
  // installed it says where it came from.
  const project = real.slice(0, real.indexOf(marker))
  const key = real.slice(project.length + 1).split(sep).join('/')
  const resolved = lockedResolved(project, key)
  if (resolved?.startsWith('file:')) return { spec: `file:${resolve(project, resolved.slice('file:'.length))}`, source: 'tarball' }
  if (resolved !== undefined && /^https?:\/\//.test(resolved)) return { spec: `^${version}`, source: 'registry' }
  return { spec: `^${version}`, source: 'unknown' }
}

function lockedResolved(project: string, key: string): string | undefined {
  for (const file of [join(project, 'node_modules', '.package-lock.json'), join(project, 'package-lock.json')]) {
    if (!existsSync(file)) continue
    let raw: unknown
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'))
    } catch {
      continue
    }
    const lock = Lockfile.safeParse(raw)
    const resolved = lock.success ? lock.data.packages[key]?.resolved : undefined
    if (resolved !== undefined) return resolved
  }
  return undefined
}
