import type { ResolvedSettings } from '../../settings/schema.js'
import type { SecretsReport } from '../../secrets/secrets.js'

export type CheckStatus = 'PASS' | 'WARN' | 'FAIL'

/** The svc running with the pid file doctor looks at, as its state file says. */
export interface RunningTree {
  pid: number
  host: string
  port: number
  workers: number
  target: string
}

/** One doctor row; JSON output carries exactly these three keys. */
export interface CheckRow {
  name: string
  status: CheckStatus
  detail: string
}

export interface DoctorContext {
  readonly env: NodeJS.ProcessEnv
  readonly cwd: string
  /** `--strict`: rows that are advice (WARN) become FAIL. */
  readonly strict: boolean
  readonly target: string
  /** Resolved settings (the app's own when the target imported), or null when they are invalid. */
  readonly settings: ResolvedSettings | null
  /** Absolute pidfile path; the state file lives next to it. */
  readonly pidfile: string
  /** The svc running with that pid file, whose port and workers the rows judge; null when none runs. */
  readonly running: RunningTree | null
  /** What the app found of its secrets (names and origins only); null when it did not get that far. */
  readonly secrets: SecretsReport | null
  /** `import()` seam, so tests can pretend an optional package is missing. */
  readonly importModule: (specifier: string) => Promise<unknown>
}

export type SettingsContext = DoctorContext & { readonly settings: ResolvedSettings }

type Rows = CheckRow | CheckRow[] | null
export type Check = (ctx: DoctorContext) => Rows | Promise<Rows>
export type SettingsCheck = (ctx: SettingsContext) => Rows | Promise<Rows>

export const pass = (name: string, detail: string): CheckRow => ({ name, status: 'PASS', detail })
export const warn = (name: string, detail: string): CheckRow => ({ name, status: 'WARN', detail })
export const fail = (name: string, detail: string): CheckRow => ({ name, status: 'FAIL', detail })
/** Advice that `--strict` (or a `strict_*` setting) turns into a failure. */
export const advise = (strict: boolean, name: string, detail: string): CheckRow => (strict ? fail : warn)(name, detail)

/**
 * Run a check only when settings resolved. Without them it has nothing true to say: the row it
 * always prints (`row`) says WARN, skipped and why; a row printed only in some cases is left out.
 */
export function needsSettings(check: SettingsCheck, row?: string): Check {
  return (ctx) => {
    if (ctx.settings !== null) return check({ ...ctx, settings: ctx.settings })
    return row === undefined ? null : warn(row, 'skipped: the settings are invalid (see the settings row); fix them and run svc doctor again')
  }
}

/** `/tools` + `/api` → `/tools/api`: the browser-visible API prefix. */
export function publicApiPrefix(settings: Pick<ResolvedSettings, 'root_path' | 'api_mount_path'>): string {
  return settings.root_path + settings.api_mount_path
}
