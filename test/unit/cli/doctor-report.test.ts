import { describe, expect, it } from 'vitest'
import { formatJson, formatRow, formatText, summarize } from '../../../src/cli/doctor/report.js'
import { fail, pass, warn } from '../../../src/cli/doctor/types.js'

describe('doctor report', () => {
  it('pads the status to four characters and adds two spaces', () => {
    expect(formatRow(pass('node_version', 'v20.20.2'))).toBe('PASS  node_version: v20.20.2')
    expect(formatRow(warn('x', 'y'))).toBe('WARN  x: y')
    expect(formatRow(fail('x', 'y'))).toBe('FAIL  x: y')
  })

  it('summarises: fail beats warn unless warnings-only', () => {
    expect(summarize([pass('a', '')], false)).toBe('pass')
    expect(summarize([pass('a', ''), warn('b', '')], false)).toBe('warn')
    expect(summarize([warn('b', ''), fail('c', '')], false)).toBe('fail')
    expect(summarize([fail('c', '')], true)).toBe('warn')
    expect(summarize([], true)).toBe('pass')
  })

  it('prints a header in text mode and none in JSON', () => {
    const report = { status: 'pass' as const, target: 'app:app', warnings_only: false, checks: [pass('a', 'b')] }
    expect(formatText(report)).toBe('svc doctor\n\nPASS  a: b\n')
    expect(JSON.parse(formatJson(report))).toEqual(report)
  })
})
