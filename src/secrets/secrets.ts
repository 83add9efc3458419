import type { z } from 'zod'
import { SvcError } from '../errors.js'
import { registerSecretValues } from '../logging/secret-scrub.js'
import { envSpelling, readSecretSources, SECRET_ENV_PREFIX, type SecretOrigin, type SecretSources } from './secret-sources.js'

/**
 * `app.secrets`: the secrets file and `SVC_SECRET_*` variables, checked against the app's zod
 * schema when it gives one (`new Svc({ secrets: z.object({...}) })`), frozen, and registered for
 * scrubbing from every log line. Messages and reports name secrets and where they come from,
 * never their values.
 */

/** A zod schema for the secrets, usually `z.object({ ... })`. */
export type SecretsSchema = z.ZodType<object>

/** The type of `app.secrets` for a schema (or none). */
export type SecretsOf<S> = S extends z.ZodType ? Readonly<z.output<S>> : Readonly<Record<string, unknown>>

export interface SecretStatus {
  readonly name: string
  readonly present: boolean
  /** The schema refuses the secret missing (without a schema: every secret found). */
  readonly required: boolean
  readonly origin: SecretOrigin | null
  /** What the schema says is wrong with it (never the value), or null. */
  readonly problem: string | null
}

/** What `svc doctor` and `svc config` show: names, origins and problems, no values. */
export interface SecretsReport {
  readonly file: string
  readonly fileFound: boolean
  readonly fileMode: number | null
  readonly schema: boolean
  readonly secrets: readonly SecretStatus[]
}

/** Set on the app (and on the error when the secrets are invalid), for doctor and config. */
export const kSecretsReport = Symbol.for('svc.secretsReport')

interface SafeParser {
  safeParse(input: unknown): { success: true; data: unknown } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } }
}

export interface LoadSecretsOptions {
  cwd: string
  env: NodeJS.ProcessEnv
  /** The `secrets_file` setting. */
  file: string
}

/**
 * Read, check and freeze the secrets. Throws `SVC_ERR_CONFIG_SECRETS` naming every missing or
 * invalid secret (the error carries the report under `kSecretsReport`).
 */
export function loadSecrets<S extends SecretsSchema | undefined>(schema: S, options: LoadSecretsOptions): { values: SecretsOf<S>; report: SecretsReport } {
  const sources = readSecretSources(options)
  // Every value found is a secret, used by the schema or not: none may reach a log line.
  registerSecretValues([...sources.values.values()])
  const parser = schema as unknown as SafeParser | undefined
  const shape = shapeOf(schema)
  const picked = new Map<string, { value: unknown; origin: SecretOrigin } | undefined>()
  const input: Record<string, unknown> = {}
  if (shape) {
    for (const key of Object.keys(shape)) {
      const found = pick(sources, key)
      picked.set(key, found)
      if (found) input[key] = found.value
    }
  } else {
    for (const [name, value] of sources.values) {
      picked.set(name, { value, origin: sources.origins.get(name)! })
      input[name] = value
    }
  }
  const problems = new Map<string, string>()
  let values: unknown = input
  if (parser) {
    const parsed = parser.safeParse(input)
    if (parsed.success) values = parsed.data
    else for (const issue of parsed.error.issues) {
      const name = issue.path.length > 0 ? String(issue.path[0]) : '(secrets)'
      const where = issue.path.length > 1 ? `${issue.path.slice(1).map(String).join('.')}: ` : ''
      if (!problems.has(name)) problems.set(name, where + issue.message)
    }
  }
  const secrets: SecretStatus[] = [...picked].map(([name, found]) => ({
    name,
    present: found !== undefined,
    required: shape ? !acceptsMissing(shape[name]) : true,
    origin: found?.origin ?? null,
    problem: problems.get(name) ?? null,
  }))
  const report: SecretsReport = Object.freeze({
    file: sources.file,
    fileFound: sources.fileFound,
    fileMode: sources.fileMode,
    schema: parser !== undefined,
    secrets: Object.freeze(secrets),
  })
  if (problems.size > 0) {
    const lines = [...problems].map(([name, problem]) => {
      const status = secrets.find((s) => s.name === name)
      if (status && !status.present) return `${name} is missing: set ${SECRET_ENV_PREFIX}${envSpelling(name)} or add "${name}" to ${sources.file}`
      return `${name}${status?.origin ? ` (from ${describeOrigin(status.origin)})` : ''}: ${problem}`
    })
    const err = new SvcError('SVC_ERR_CONFIG_SECRETS', `invalid secrets (values are not shown):\n  ${lines.join('\n  ')}`)
    Object.defineProperty(err, kSecretsReport, { value: report })
    throw err
  }
  registerSecretValues(values)
  return { values: deepFreeze(values) as SecretsOf<S>, report }
}

export function describeOrigin(origin: SecretOrigin): string {
  return origin.kind === 'env' ? `environment variable ${origin.name}` : origin.file
}

/** The keys of a `z.object` schema (duck-typed: the app's zod may be another copy than svc's). */
function shapeOf(schema: unknown): Record<string, SafeParser> | null {
  const shape = (schema as { shape?: unknown } | undefined)?.shape
  return shape !== null && typeof shape === 'object' ? (shape as Record<string, SafeParser>) : null
}

function acceptsMissing(field: SafeParser | undefined): boolean {
  return field?.safeParse(undefined).success === true
}

/** A schema key `dbUrl` is found as `dbUrl` or `DB_URL`; a value from the environment wins over the file. */
function pick(sources: SecretSources, key: string): { value: unknown; origin: SecretOrigin } | undefined {
  const found = [...new Set([key, envSpelling(key)])]
    .filter((name) => sources.values.has(name))
    .map((name) => ({ value: sources.values.get(name), origin: sources.origins.get(name)! }))
  return found.find((f) => f.origin.kind === 'env') ?? found[0]
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}
