import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Readable } from 'node:stream'
import type { Logger } from 'pino'
import { processChannel } from '../ipc/channel.js'
import { ProbeToSupervisor, type AppProfile } from '../ipc/messages.js'
import { z } from '../src/internal/zod.js'
import { childEnv } from '../src/process/child-env.js'
import { killTree } from '../src/process/kill-tree.js'
import type { ResolvedSettings } from '../src/settings/schema.js'
import type { ProbeRequest } from './probe.js'

export const PROBE_MAIN = fileURLToPath(new URL('./main.js', import.meta.url))

/** How a probe ended: the app as it loaded, or why not (see `ProbeToSupervisor`). */
export type ProbeOutcome =
  | { ok: true; profile: AppProfile }
  | { ok: false; stage: 'settings' | 'app'; code: string; message: string; settings: ResolvedSettings | null }

export interface RunningProbe {
  readonly pid: number | null
  /** The settings known without the app, as soon as the probe resolved them; null when it failed first. */
  readonly provisional: Promise<ResolvedSettings | null>
  readonly outcome: Promise<ProbeOutcome>
  /** End the probe's tree now (a stop asked for while it loads); `outcome` then says it was cancelled. */
  cancel(): Promise<void>
}

/**
 * Fork the probe child (`probe/main.ts`) with `env`, its own process group and tree cookie
 * `cookie`, and read its one report. A probe that exits without one (killed, crashed before it
 * could say) is an `app` failure naming how it ended.
 */
export function runProbe(
  request: ProbeRequest,
  options: { env: NodeJS.ProcessEnv; cwd?: string; cookie: string | null; logger: Logger; execArgv?: string[]; stdout?: (stream: Readable) => void },
): RunningProbe {
  const child = fork(PROBE_MAIN, [JSON.stringify(request)], {
    env: { ...options.env, ...childEnv({ treeId: options.cookie ?? undefined }) },
    cwd: options.cwd,
    execArgv: options.execArgv ?? process.execArgv,
    detached: true,
    stdio: ['ignore', options.stdout ? 'pipe' : 'inherit', 'inherit', 'ipc'],
  })
  child.on('error', () => {})
  if (options.stdout && child.stdout) options.stdout(child.stdout)
  const channel = processChannel(child, { incoming: ProbeToSupervisor, outgoing: z.never() }, options.logger, `probe ${child.pid}`)
  let report: Exclude<ProbeToSupervisor, { type: 'provisional' }> | null = null
  let cancelled = false
  let early!: (settings: ResolvedSettings | null) => void
  const provisional = new Promise<ResolvedSettings | null>((resolve) => (early = resolve))
  channel.onMessage((m) => {
    if (m.type === 'provisional') early(m.settings)
    else report ??= m
  })
  const outcome = new Promise<ProbeOutcome>((resolve) => {
    child.once('exit', (code, signal) => {
      // Whatever the app started at import goes too, even what left the probe's group.
      early(null)
      void killTree({ pid: child.pid ?? null, cookie: options.cookie }).finally(() => resolve(outcomeOf(report, cancelled, code, signal)))
    })
  })
  return {
    pid: child.pid ?? null,
    provisional,
    outcome,
    async cancel() {
      cancelled = true
      await killTree({ pid: child.pid ?? null, cookie: options.cookie })
      await outcome
    },
  }
}

function outcomeOf(report: Exclude<ProbeToSupervisor, { type: 'provisional' }> | null, cancelled: boolean, code: number | null, signal: NodeJS.Signals | null): ProbeOutcome {
  if (report?.type === 'probed') return { ok: true, profile: report.profile }
  if (report) return { ok: false, stage: report.stage, code: report.code, message: report.message, settings: report.settings }
  if (cancelled) return { ok: false, stage: 'app', code: 'SVC_ERR_PROCESS_START_CANCELLED', message: 'svc is stopping', settings: null }
  const how = signal ? `signal ${signal}` : `exit code ${code}`
  return { ok: false, stage: 'app', code: 'SVC_ERR_TARGET_IMPORT_FAILED', message: `the app could not be loaded: the probe child ended (${how}) before it reported`, settings: null }
}
