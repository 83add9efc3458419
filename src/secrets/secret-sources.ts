import { readFileSync, statSync } from 'node:fs'
import { resolve as resolvePath } from 'node:path'
import { SvcError } from '../errors.js'

/**
 * Where secrets come from: a JSON file (`secrets_file`, default `.svc/secrets.json` in the working
 * directory) and `SVC_SECRET_<NAME>` environment variables, which win over the file. Only names
 * and origins leave this module in messages; values never do.
 */

export const SECRET_ENV_PREFIX = 'SVC_SECRET_'

export type SecretOrigin = { kind: 'file'; file: string } | { kind: 'env'; name: string }

export interface SecretSources {
  /** Absolute path of the secrets file. */
  readonly file: string
  readonly fileFound: boolean
  /** Permission bits of the file (null when absent), for doctor's "readable by others" warning. */
  readonly fileMode: number | null
  /** Values by name as found (file first, environment on top). */
  readonly values: ReadonlyMap<string, unknown>
  readonly origins: ReadonlyMap<string, SecretOrigin>
}

/** `dbUrl`, `db-url`, `db.url` → `DB_URL`: the environment spelling of a secret name. */
export function envSpelling(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase()
}

/** Read the secrets file (if it exists) and the `SVC_SECRET_*` variables of `env`. */
export function readSecretSources(options: { cwd: string; env: NodeJS.ProcessEnv; file: string }): SecretSources {
  const file = resolvePath(options.cwd, options.file)
  const values = new Map<string, unknown>()
  const origins = new Map<string, SecretOrigin>()
  const fromFile = readSecretsFile(file)
  for (const [name, value] of Object.entries(fromFile?.data ?? {})) {
    values.set(name, value)
    origins.set(name, { kind: 'file', file })
  }
  for (const [envName, value] of Object.entries(options.env)) {
    if (!envName.startsWith(SECRET_ENV_PREFIX) || envName.length === SECRET_ENV_PREFIX.length || value === undefined) continue
    const name = envName.slice(SECRET_ENV_PREFIX.length)
    values.set(name, value)
    origins.set(name, { kind: 'env', name: envName })
  }
  return { file, fileFound: fromFile !== null, fileMode: fromFile?.mode ?? null, values, origins }
}

function readSecretsFile(file: string): { data: Record<string, unknown>; mode: number } | null {
  let text: string
  let mode: number
  try {
    text = readFileSync(file, 'utf8')
    mode = statSync(file).mode & 0o777
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw new SvcError('SVC_ERR_CONFIG_SECRETS', `cannot read the secrets file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
  }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (err) {
    // JSON.parse quotes the text it failed on, which may be a secret: name the position only.
    const at = /position (\d+)/.exec((err as Error).message)?.[1]
    throw new SvcError('SVC_ERR_CONFIG_SECRETS', `the secrets file ${file} is not valid JSON${at ? ` (at position ${at})` : ''}; it must hold one JSON object, e.g. {"API_KEY": "…"}`)
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new SvcError('SVC_ERR_CONFIG_SECRETS', `the secrets file ${file} must hold a JSON object of secrets, got ${Array.isArray(data) ? 'an array' : data === null ? 'null' : typeof data}`)
  }
  return { data: data as Record<string, unknown>, mode }
}
