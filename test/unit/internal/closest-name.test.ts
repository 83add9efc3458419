import { describe, expect, it } from 'vitest'
import { closestName } from '../../../src/internal/closest-name.js'
import { SETTING_KEYS } from '../../../src/settings/schema.js'

describe('closestName', () => {
  it.each([
    ['gateway_prot', 'gateway_port'],
    ['wrokers', 'workers'],
    ['gatway_host', 'gateway_host'],
    ['LOG_LEVEL', 'log_level'],
    ['port', 'gateway_port'],
    ['host', 'gateway_host'],
    ['show_error_detail', 'show_error_details'],
  ])('%s → %s', (typed, meant) => {
    expect(closestName(typed, SETTING_KEYS)).toBe(meant)
  })

  it.each([['zzzzzz'], ['log'], ['x']])('%s: nothing close, or several names equally (no guess)', (typed) => {
    expect(closestName(typed, SETTING_KEYS)).toBeNull()
  })

  it('flags: --prot → --port, --relaod → --reload', () => {
    const flags = ['--host', '--port', '--workers', '--pidfile', '--no-pidfile', '--reload', '--reload-scope']
    expect(closestName('--prot', flags)).toBe('--port')
    expect(closestName('--relaod', flags)).toBe('--reload')
    expect(closestName('--bogus', flags)).toBeNull()
  })
})
