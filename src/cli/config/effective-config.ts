import { existsSync } from 'node:fs'
import { resolve as resolvePath } from 'node:path'
import {
  CONFIG_FILE_NAME,
  configFileLayer,
  envLayer,
  flagsLayer,
  optionsLayer,
  resolveSettings,
  settingSources,
  type SettingSource,
  type SettingsLayer,
} from '../../settings/resolve.js'
import { FIELDS, SETTING_KEYS, isSecretSetting, type ResolvedSettings, type SettingKey, type SettingsInput } from '../../settings/schema.js'
import { REDACTED, redactArgv, redactQuery, redactUrlPassword } from '../../logging/redact.js'
import { parseTarget, resolveTargetFile } from '../../target/target-path.js'
import type { SecretsReport } from '../../secrets/secrets.js'

export type SourceKind = 'default' | 'options' | 'file' | 'env' | 'flag'

export interface ConfigRow {
  value: unknown
  source: SourceKind
  /** The env variable, flag, file path or `new Svc({...})` that gave the value; null for a default. */
  from: string | null
  /** True when the value is a secret (or holds one) and was replaced. */
  redacted: boolean
  /** Set when svc adjusted the value after resolution (debug raises log levels). */
  adjusted_by?: 'debug'
}

export interface EffectiveConfig {
  target: string
  /** The imported app module, or null when the target's file does not exist (default target only). */
  app: { file: string; export: string } | null
  config_file: string | null
  settings: Record<SettingKey, ConfigRow>
  /** The app's secrets by name, every value `<redacted>`; null when no app was imported. */
  secrets: SecretRow[] | null
}

export interface SecretRow {
  name: string
  /** Always `<redacted>` when present: `svc config` never prints a secret. */
  value: string | null
  source: 'file' | 'env' | null
  from: string | null
}

export interface LoadedOptions {
  options: SettingsInput
  file: string
  exportName: string
  secrets?: SecretsReport
}

export interface EffectiveConfigRequest {
  flags: Parameters<typeof flagsLayer>[0]
  env: NodeJS.ProcessEnv
  cwd: string
  /** Imports the app target and returns what it passed to `new Svc({...})`. */
  loadOptions: (target: string, cwd: string) => Promise<LoadedOptions>
}

/**
 * The settings `svc run` would resolve, with the source of each: defaults < `new Svc({...})`
 * options < svc.config.json < SVC_* env < flags (the supervisor hands flags to its children as
 * env, above everything else). Throws the resolver's `SvcError` for a bad value or file.
 */
export async function effectiveConfig(req: EffectiveConfigRequest): Promise<EffectiveConfig> {
  const outer = [configFileLayer(req.cwd), envLayer(req.env), flagsLayer(req.flags)]
  const target = resolveSettings(outer).target
  const targetSet = outer.some((l) => l.values.target !== undefined)
  const module = parseTarget(target).module
  let loaded: LoadedOptions | null = null
  // The default target is optional here (a config can be read without an app); a given one must exist.
  if (targetSet || targetExists(module, req.cwd)) {
    resolveTargetFile(module, req.cwd)
    loaded = await req.loadOptions(target, req.cwd)
  }
  const layers = [optionsLayer((loaded?.options ?? {}) as Record<string, unknown>), ...outer]
  const settings = resolveSettings(layers)
  const sources = settingSources(layers)
  const configFile = resolvePath(req.cwd, CONFIG_FILE_NAME)
  const rows = {} as Record<SettingKey, ConfigRow>
  for (const key of SETTING_KEYS) rows[key] = row(key, settings, sources[key], layers)
  return {
    target,
    app: loaded ? { file: loaded.file, export: loaded.exportName } : null,
    config_file: existsSync(configFile) ? configFile : null,
    settings: rows,
    secrets: loaded?.secrets ? secretRows(loaded.secrets) : null,
  }
}

function secretRows(report: SecretsReport): SecretRow[] {
  return report.secrets.map((s) => ({
    name: s.name,
    value: s.present ? REDACTED : null,
    source: s.origin?.kind ?? null,
    from: s.origin === null ? null : s.origin.kind === 'env' ? s.origin.name : s.origin.file,
  }))
}

function targetExists(module: string, cwd: string): boolean {
  try {
    resolveTargetFile(module, cwd)
    return true
  } catch {
    return false
  }
}

function row(key: SettingKey, settings: ResolvedSettings, source: SettingSource, layers: readonly SettingsLayer[]): ConfigRow {
  const value = settings[key]
  const { kind, from } = describe(source)
  const secret = isSecretSetting(key) || looksSecret(key)
  const shown = secret ? (value === '' ? '' : REDACTED) : redactCredentials(value)
  const out: ConfigRow = { value: shown, source: kind, from, redacted: secret ? value !== '' : JSON.stringify(shown) !== JSON.stringify(value) }
  if (settings.debug && JSON.stringify(value) !== JSON.stringify(undecorated(key, layers))) out.adjusted_by = 'debug'
  return out
}

/** The value before the debug adjustments, to tell a reader why it differs from its source. */
function undecorated(key: SettingKey, layers: readonly SettingsLayer[]): unknown {
  const raw = layers.findLast((l) => l.values[key] !== undefined)?.values[key] ?? FIELDS[key].default
  const parsed = FIELDS[key].schema.safeParse(raw)
  return parsed.success ? parsed.data : raw
}

function describe(source: SettingSource): { kind: SourceKind; from: string | null } {
  switch (source.kind) {
    case 'default':
      return { kind: 'default', from: null }
    case 'options':
      return { kind: 'options', from: 'new Svc({...})' }
    case 'config':
      return { kind: 'file', from: source.file }
    case 'env':
      return { kind: 'env', from: source.name }
    case 'flag':
      return { kind: 'flag', from: source.name }
  }
}

/** The logs' rule for query keys (`*_secret`, `*_token`, `*_key`, `password`...) applied to setting names. */
function looksSecret(key: SettingKey): boolean {
  return redactQuery(`${key}=x`) !== `${key}=x`
}

/** A URL's password (`redis://user:pw@host`) is a secret whatever the setting is called; so is a credential on a command line. */
function redactCredentials(value: unknown): unknown {
  if (typeof value === 'string') return redactUrlPassword(value)
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return redactArgv(value)
  return value
}

/** Text table: one row per setting, then the files the values came from. */
export function formatConfigText(config: EffectiveConfig): string {
  const cells = SETTING_KEYS.map((key) => {
    const r = config.settings[key]
    const source = r.from === null ? r.source : `${r.source} (${r.from})`
    return [key, JSON.stringify(r.value), r.adjusted_by ? `${source}, raised by debug` : source] as const
  })
  const w0 = Math.max(...cells.map((c) => c[0].length))
  const w1 = Math.min(48, Math.max(...cells.map((c) => c[1].length)))
  const lines = cells.map(([k, v, s]) => `${k.padEnd(w0)}  ${v.padEnd(w1)}  ${s}`)
  const secrets = (config.secrets ?? []).map((s) => `  ${s.name}  ${s.value === null ? 'missing' : `${s.value}  ${s.source} (${s.from})`}`)
  const tail = config.secrets === null ? [] : ['', `secrets: ${secrets.length === 0 ? 'none' : ''}`.trimEnd(), ...secrets]
  const head = [
    `target: ${config.target}${config.app ? ` (${config.app.file}, export "${config.app.export}")` : ' (no app file found: new Svc options not read)'}`,
    `config file: ${config.config_file ?? `none (${CONFIG_FILE_NAME} not found)`}`,
    '',
  ]
  return [...head, ...lines, ...tail, ''].join('\n')
}
