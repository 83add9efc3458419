import { readFileSync } from 'node:fs'
import { resolve as resolvePath } from 'node:path'
import { SvcError } from '../errors.js'
import { closestName } from '../internal/closest-name.js'
import {
  FIELDS,
  INVALID_JSON,
  SETTING_KEYS,
  envNameOf,
  parseFromString,
  type ResolvedSettings,
  type SettingKey,
  type SettingsInput,
} from './schema.js'

/** Where a value came from; named in every error so the user knows what to fix. */
export type SettingSource =
  | { kind: 'default' }
  | { kind: 'options' }
  | { kind: 'config'; file: string }
  | { kind: 'env'; name: string }
  | { kind: 'flag'; name: string }

export interface SettingsLayer {
  source: (key: SettingKey) => SettingSource
  values: Partial<Record<SettingKey, unknown>>
}

export const CONFIG_FILE_NAME = 'svc.config.json'

export function describeSource(key: SettingKey, source: SettingSource): string {
  switch (source.kind) {
    case 'default':
      return `default of ${key}`
    case 'options':
      return `new Svc({ ${key} })`
    case 'config':
      return `${source.file} key "${key}"`
    case 'env':
      return `environment variable ${source.name}`
    case 'flag':
      return `flag ${source.name}`
  }
}

function show(value: unknown): string {
  if (value === INVALID_JSON) return '(not valid JSON)'
  if (typeof value === 'string') return JSON.stringify(value)
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/**
 * Every unknown name at once, each with the closest setting: `"gateway_prot" (did you mean
 * "gateway_port"?), "wrokers" (did you mean "workers"?)`.
 */
function describeUnknown(names: readonly string[]): string {
  return names
    .map((n) => {
      const near = closestName(n, SETTING_KEYS)
      return near === null ? JSON.stringify(n) : `${JSON.stringify(n)} (did you mean "${near}"?)`
    })
    .join(', ')
}

/** Layer from `new Svc({...})` options; unknown keys are errors (a typo must not pass silently). */
export function optionsLayer(options: Record<string, unknown>): SettingsLayer {
  const values: Partial<Record<SettingKey, unknown>> = {}
  const unknown: string[] = []
  for (const [k, v] of Object.entries(options)) {
    if (v === undefined) continue
    if (!Object.hasOwn(FIELDS, k)) unknown.push(k)
    else values[k as SettingKey] = v
  }
  if (unknown.length > 0) {
    const what = unknown.length === 1 ? 'unknown setting' : 'unknown settings'
    throw new SvcError('SVC_ERR_CONFIG_INVALID', `new Svc({ ${unknown.join(', ')} }): ${what} ${describeUnknown(unknown)}; known settings are listed in docs/configuration.md`)
  }
  return { source: () => ({ kind: 'options' }), values }
}

/** Layer from `svc.config.json` in `cwd`, if the file exists. */
export function configFileLayer(cwd: string = process.cwd(), file = CONFIG_FILE_NAME): SettingsLayer {
  const path = resolvePath(cwd, file)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { source: () => ({ kind: 'default' }), values: {} }
    throw new SvcError('SVC_ERR_CONFIG_FILE', `cannot read ${path}: ${(err as Error).message}`, { cause: err })
  }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (err) {
    throw new SvcError('SVC_ERR_CONFIG_FILE', `${path} is not valid JSON (${(err as Error).message}); fix the file or remove it`, { cause: err })
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new SvcError('SVC_ERR_CONFIG_FILE', `${path} must hold a JSON object of settings, got ${Array.isArray(data) ? 'an array' : typeof data}`)
  }
  const values: Partial<Record<SettingKey, unknown>> = {}
  const unknown: string[] = []
  for (const [k, v] of Object.entries(data)) {
    if (k === '$schema') continue
    if (!Object.hasOwn(FIELDS, k)) unknown.push(k)
    else values[k as SettingKey] = v
  }
  if (unknown.length > 0) {
    throw new SvcError('SVC_ERR_CONFIG_FILE', `${path}: ${unknown.length === 1 ? 'unknown key' : 'unknown keys'} ${describeUnknown(unknown)}; known keys are listed in docs/configuration.md`)
  }
  return { source: () => ({ kind: 'config', file: path }), values }
}

/** Layer from `SVC_*` environment variables (strings parsed per field). */
export function envLayer(env: NodeJS.ProcessEnv = process.env): SettingsLayer {
  const values: Partial<Record<SettingKey, unknown>> = {}
  for (const key of SETTING_KEYS) {
    const raw = env[envNameOf(key)]
    if (raw === undefined) continue
    values[key] = parseFromString(key, raw)
  }
  // PUBLIC_BASE_URL is a fallback only: SVC_PUBLIC_BASE_URL wins when both are set.
  if (values.public_base_url === undefined && env.PUBLIC_BASE_URL) values.public_base_url = env.PUBLIC_BASE_URL
  return {
    source: (key) =>
      key === 'public_base_url' && env[envNameOf(key)] === undefined
        ? { kind: 'env', name: 'PUBLIC_BASE_URL' }
        : { kind: 'env', name: envNameOf(key) },
    values,
  }
}

/** Layer from CLI flags: `flags` maps a setting key to [flag name, raw value or typed value]. */
export function flagsLayer(flags: Partial<Record<SettingKey, { flag: string; value: unknown }>>): SettingsLayer {
  const values: Partial<Record<SettingKey, unknown>> = {}
  const names: Partial<Record<SettingKey, string>> = {}
  for (const key of Object.keys(flags) as SettingKey[]) {
    const f = flags[key]
    if (!f || f.value === undefined) continue
    values[key] = typeof f.value === 'string' ? parseFromString(key, f.value) : f.value
    names[key] = f.flag
  }
  return { source: (key) => ({ kind: 'flag', name: names[key] ?? key }), values }
}

const UNIT_OF_SUFFIX: ReadonlyArray<readonly [string, string]> = [
  ['_s', ' (seconds)'],
  ['_seconds', ' (seconds)'],
  ['_bytes', ' (bytes)'],
  ['_mb', ' (MB)'],
]

/**
 * What a numeric setting allows, read from its schema: `must be an integer from 1 to 64`, `must
 * be a port from 0 to 65535`. zod's own words ("expected number, received string", ">=1") name
 * neither the range nor the fix. Null for settings that are not numbers.
 */
function numberRule(key: SettingKey): string | null {
  const schema = FIELDS[key].schema as { def?: { type?: string }; minValue?: number | null; maxValue?: number | null; isInt?: boolean }
  if (schema.def?.type !== 'number') return null
  const min = schema.minValue ?? null
  const max = schema.maxValue === Number.MAX_SAFE_INTEGER ? null : (schema.maxValue ?? null)
  const kind = key.endsWith('_port') ? 'a port' : schema.isInt === true ? 'an integer' : 'a number'
  const unit = UNIT_OF_SUFFIX.find(([suffix]) => key.endsWith(suffix))?.[1] ?? ''
  if (min !== null && max !== null) return `must be ${kind} from ${min} to ${max}${unit}`
  if (min !== null) return `must be ${kind} of ${min} or more${unit}`
  if (max !== null) return `must be ${kind} of at most ${max}${unit}`
  return `must be ${kind}${unit}`
}

/**
 * Text from the environment or a flag that `Number()` reads but the setting refuses (`1e3`,
 * `0x50`, `80.0`) may be in range once read, so the range alone would not say what is wrong: name
 * the written form too.
 */
function writtenFormHint(key: SettingKey, raw: unknown, source: SettingSource): string {
  if ((source.kind !== 'env' && source.kind !== 'flag') || typeof raw !== 'string' || raw.trim() === '' || Number.isNaN(Number(raw))) return ''
  return `, written as plain decimal digits like ${String(FIELDS[key].default)}`
}

/**
 * Merge layers, lowest precedence first, validate every value once, and freeze.
 * Throws `SVC_ERR_CONFIG_INVALID` naming the setting, where the value came from, the value and
 * what is allowed.
 */
export function resolveSettings(layers: readonly SettingsLayer[]): ResolvedSettings {
  const out = Object.create(null) as Record<string, unknown>
  const problems: string[] = []
  for (const key of SETTING_KEYS) {
    let raw: unknown = FIELDS[key].default
    let source: SettingSource = { kind: 'default' }
    for (const layer of layers) {
      if (key in layer.values && layer.values[key] !== undefined) {
        raw = layer.values[key]
        source = layer.source(key)
      }
    }
    const parsed = FIELDS[key].schema.safeParse(raw)
    if (parsed.success) {
      out[key] = parsed.data
    } else {
      const example = (FIELDS[key] as { example?: string }).example
      const rule = numberRule(key)
      const allowed =
        raw === INVALID_JSON
          ? `write it as JSON${example ? `, e.g. ${example}` : ''}`
          : rule !== null
            ? `${rule}${writtenFormHint(key, raw, source)}`
            : parsed.error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')} ${i.message}` : i.message)).join('; ')
      problems.push(`${describeSource(key, source)}: ${show(raw)} is not valid for ${key}: ${allowed}`)
    }
  }
  if (problems.length > 0) {
    throw new SvcError('SVC_ERR_CONFIG_INVALID', `invalid settings:\n  ${problems.join('\n  ')}`)
  }
  return finalize(out as unknown as ResolvedSettings)
}

/** Where each setting's value comes from: the last layer that sets it, else its default. */
export function settingSources(layers: readonly SettingsLayer[]): Record<SettingKey, SettingSource> {
  const out = {} as Record<SettingKey, SettingSource>
  for (const key of SETTING_KEYS) {
    const layer = layers.findLast((l) => key in l.values && l.values[key] !== undefined)
    out[key] = layer ? layer.source(key) : { kind: 'default' }
  }
  return out
}

/** Cross-field rules that are defaults, not errors (spec: debug turns logging up). */
function finalize(s: ResolvedSettings): ResolvedSettings {
  const next: { -readonly [K in keyof ResolvedSettings]: ResolvedSettings[K] } = { ...s }
  if (s.debug) {
    next.enable_gateway_access_log = true
    next.enable_request_logging = true
    if (s.log_level === 'info') next.log_level = 'debug'
  }
  return Object.freeze(next)
}

/**
 * Settings resolved elsewhere and handed over (the probe child to the supervisor, the supervisor
 * to its children over IPC): checked field by field against the same schema, never layered again.
 * Throws `SVC_ERR_IPC_BAD_MESSAGE` naming the fields that do not hold (a bug or a version skew).
 */
export function settingsFromData(data: Readonly<Record<string, unknown>>): ResolvedSettings {
  const out = Object.create(null) as Record<string, unknown>
  const problems: string[] = []
  for (const key of SETTING_KEYS) {
    const parsed = FIELDS[key].schema.safeParse(data[key])
    if (parsed.success) out[key] = parsed.data
    else problems.push(`${key}: ${parsed.error.issues.map((i) => i.message).join('; ')}`)
  }
  if (problems.length > 0) throw new SvcError('SVC_ERR_IPC_BAD_MESSAGE', `handed-over settings do not hold: ${problems.join(', ')}`)
  return Object.freeze(out) as unknown as ResolvedSettings
}

/** The standard stack for a process: defaults < app options < svc.config.json < env. */
export function resolveProcessSettings(
  options: SettingsInput = {},
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): ResolvedSettings {
  return resolveSettings([optionsLayer(options as Record<string, unknown>), configFileLayer(cwd), envLayer(env)])
}

export type { ResolvedSettings, SettingKey, SettingsInput }
