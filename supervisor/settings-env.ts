import { envNameOf, type SettingKey } from '../src/settings/schema.js'

/** Typed setting values as `SVC_*` strings, so child processes resolve the same settings. */
export function settingsToEnv(values: Partial<Record<SettingKey, unknown>>): Record<string, string> {
  const env: Record<string, string> = {}
  for (const key of Object.keys(values) as SettingKey[]) {
    const v = values[key]
    if (v === undefined) continue
    env[envNameOf(key)] = typeof v === 'string' ? v : typeof v === 'boolean' ? (v ? '1' : '0') : JSON.stringify(v)
  }
  return env
}
