import { readFile } from 'node:fs/promises'
import { z } from '../src/internal/zod.js'
import { SvcError } from '../src/errors.js'
import { writeFileAtomic } from './atomic-write.js'
import { removeFileIfPresent, removeFileIfPresentSync } from './remove-file.js'

const pid = z.number().int().min(2).max(2 ** 31 - 1)
const isoTime = z.iso.datetime({ offset: true })

/**
 * The state file the supervisor keeps next to its pidfile (`<pidfile>.state.json`): what runs
 * where, for `svc doctor`, `svc shutdown` and operators. Gateways never read it (they learn the
 * upstream over IPC), so a reader may find it missing, stale or from an older svc.
 */
const StateV1 = z.object({
  version: z.literal(1),
  supervisor_pid: pid,
  /** The sidecar's base URL, e.g. `http://127.0.0.1:54321` (no trailing slash). */
  ui_upstream: z.url({ protocol: /^https?$/ }),
  gateway_host: z.string().min(1),
  gateway_port: z.number().int().min(0).max(65535),
  workers: z.array(z.object({ pid, started_at: isoTime })),
  sidecar_pid: pid.nullable(),
  started_at: isoTime,
  /** The app target, e.g. `app.ts:app`. */
  target: z.string().min(1),
  /**
   * The supervisor's command line as `/proc/<pid>/cmdline` showed it at start (argv split on
   * NUL). `svc shutdown` compares it to tell the supervisor from a process that reused its pid.
   */
  cmdline: z.array(z.string()).optional(),
})

/**
 * Version 2 adds `tree_id`: the `SVC_TREE_ID` every process of the run carries
 * (`src/process/kill-tree.ts`), so the next `svc run` or `svc shutdown` finds what a killed
 * supervisor left behind. Version 1 files (older svc) are still read.
 */
const StateV2 = StateV1.extend({
  version: z.literal(2),
  tree_id: z.string().regex(/^[0-9a-f]{32}$/, 'must be 32 lower-case hex digits'),
  /**
   * The supervisor's control socket (owner-only), where `svc status` and `svc reload` ask; absent
   * before svc 0.2 and while the tree starts.
   */
  control_socket: z.string().min(1).optional(),
})

export const SvcState = z.discriminatedUnion('version', [StateV1, StateV2])
export type SvcState = z.infer<typeof SvcState>
/** What this svc writes. */
export type SvcStateV2 = z.infer<typeof StateV2>

/** `./.svc.pid` → `./.svc.pid.state.json`. */
export function stateFilePath(pidfile: string): string {
  return pidfile + '.state.json'
}

/** Validate a state object or JSON text; throws `SVC_ERR_STATE_INVALID` listing the problems. */
export function parseSvcState(data: unknown, path = 'state file'): SvcState {
  let value = data
  if (typeof data === 'string') {
    try {
      value = JSON.parse(data)
    } catch (err) {
      throw new SvcError('SVC_ERR_STATE_INVALID', `${path} is not valid JSON (${(err as Error).message}); it is rewritten on the next "svc run", or delete it`, { cause: err })
    }
  }
  const parsed = SvcState.safeParse(value)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')
    throw new SvcError('SVC_ERR_STATE_INVALID', `${path} does not match the svc state format (version 1 or 2): ${problems}`)
  }
  return parsed.data
}

/** Atomic (temp file in the same directory + rename); validates before writing. */
export async function writeStateFile(path: string, state: SvcStateV2): Promise<void> {
  const valid = parseSvcState(state, path)
  await writeFileAtomic(path, JSON.stringify(valid, null, 2) + '\n')
}

/**
 * Read and validate. Throws `SVC_ERR_STATE_MISSING` when there is no file (svc is not running
 * from this directory) and `SVC_ERR_STATE_INVALID` when the file cannot be read or parsed.
 */
export async function readStateFile(path: string): Promise<SvcState> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new SvcError('SVC_ERR_STATE_MISSING', `no state file at ${path} (svc is not running with this pidfile)`, { cause: err })
    }
    throw new SvcError('SVC_ERR_STATE_INVALID', `cannot read ${path}: ${(err as Error).message}`, { cause: err })
  }
  return parseSvcState(text, path)
}

/** Remove the state file; one that is already gone is fine. */
export const removeStateFile = removeFileIfPresent
export const removeStateFileSync = removeFileIfPresentSync
