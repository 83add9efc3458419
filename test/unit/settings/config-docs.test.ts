import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { FIELDS, SETTING_KEYS, envNameOf, type SettingKey } from '../../../src/settings/schema.js'

/** docs/configuration.md must list every setting with its env variable, flag and default. */
const doc = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8')

interface SettingRow {
  env: string
  flag: string
  default: string
}

/** Rows of the settings tables: `| \`key\` | \`ENV\` | flag | type | default | meaning |`. */
function settingRows(): Map<string, SettingRow> {
  const rows = new Map<string, SettingRow>()
  for (const line of doc.split('\n')) {
    if (!line.startsWith('| `')) continue
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim())
    if (cells.length !== 6 || !/^`SVC_[A-Z0-9_]+`$/.test(cells[1]!)) continue
    rows.set(cells[0]!.replaceAll('`', ''), { env: cells[1]!, flag: cells[2]!, default: cells[4]! })
  }
  return rows
}

/** How a default is written in the Default column. */
function shown(value: unknown): string {
  if (value === '') return '`""`'
  if (typeof value === 'string') return `\`${value}\``
  return `\`${JSON.stringify(value)}\``
}

/**
 * Flag of each setting, read from `settingFlags()` in src/cli/serve-options.ts, then from the
 * commands' own flags (`svc dev --no-type-check`) in src/cli/commands/serve.ts (vitest cannot
 * load clipanion the way Node does, so the mapping is read as text: `f.<key> = { flag: '<flag>'`).
 */
function flagsBySetting(): Map<SettingKey, string> {
  const flags = new Map<SettingKey, string>()
  const read = (file: string): string => readFileSync(new URL(`../../../src/cli/${file}`, import.meta.url), 'utf8')
  for (const m of read('serve-options.ts').matchAll(/\bf\.(\w+) = \{ flag: '([^']+)'/g)) flags.set(m[1] as SettingKey, m[2]!)
  // Only real flags there: `workbench` and `dev default` also set settings.
  for (const m of read('commands/serve.ts').matchAll(/\bflags\.(\w+) = \{ flag: '(--[^']+)'/g)) if (!flags.has(m[1] as SettingKey)) flags.set(m[1] as SettingKey, m[2]!)
  return flags
}

describe('docs/configuration.md lists every setting', () => {
  const rows = settingRows()

  it('finds the settings tables', () => {
    expect(rows.size).toBeGreaterThanOrEqual(SETTING_KEYS.length)
  })

  it.each(SETTING_KEYS)('%s: row with its env variable and default', (key) => {
    const row = rows.get(key)
    expect(row, `docs/configuration.md has no row for ${key}`).toBeDefined()
    expect(row!.env).toBe(`\`${envNameOf(key)}\``)
    expect(row!.default.startsWith(shown(FIELDS[key].default)), `default of ${key} is ${shown(FIELDS[key].default)}, docs say ${row!.default}`).toBe(true)
  })

  it('every row is a real setting', () => {
    for (const key of rows.keys()) expect(SETTING_KEYS, `docs/configuration.md documents unknown setting ${key}`).toContain(key)
  })

  it('each setting names the CLI flag that sets it, and only those have one', () => {
    const flags = flagsBySetting()
    expect(flags.size).toBeGreaterThan(5)
    for (const key of SETTING_KEYS) {
      const cell = rows.get(key)?.flag
      const flag = flags.get(key)
      if (flag === undefined) expect(cell, `${key} has no flag`).toBe('—')
      else expect(cell, `${key} is set by ${flag}`).toContain(flag === 'TARGET' ? 'TARGET' : `\`${flag}\``)
    }
  })

  it('every env variable appears in the text', () => {
    for (const key of SETTING_KEYS) expect(doc).toContain(envNameOf(key))
  })

  it('documents the variables svc sets for its children and the test switches', () => {
    const runtime = ['SVC_APP', 'SVC_UI_UPSTREAM', 'SVC_INTERNAL_API_BASE', 'SVC_UI_PORT', 'SVC_UI_LISTEN_FD', 'SVC_UI_HOST', 'SVC_ROOT_PATH', 'SVC_WORKER_ID', 'SVC_WORKER_STANDBY', 'SVC_DEV_RELOAD', 'SVC_GATEWAY_PORT']
    const switches = ['SVC_TESTS', 'SVC_FORCE_URL_SESSION_IN_TESTS', 'SVC_DISABLE_URL_SESSION', 'SVC_TEST_PAGE_OVERRIDES', 'PUBLIC_BASE_URL']
    for (const name of [...runtime, ...switches]) expect(doc).toMatch(new RegExp('\\| `' + name + '` \\||`' + name + '`'))
  })
})
