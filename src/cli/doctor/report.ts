import type { CheckRow } from './types.js'

export interface DoctorReport {
  status: 'pass' | 'warn' | 'fail'
  target: string
  warnings_only: boolean
  checks: CheckRow[]
}

/** `fail` if any FAIL (unless warnings-only); `warn` if any FAIL under warnings-only or any WARN; else `pass`. */
export function summarize(checks: readonly CheckRow[], warningsOnly: boolean): DoctorReport['status'] {
  const anyFail = checks.some((c) => c.status === 'FAIL')
  if (anyFail && !warningsOnly) return 'fail'
  if (anyFail || checks.some((c) => c.status === 'WARN')) return 'warn'
  return 'pass'
}

/** `PASS  name: detail` — status padded to four characters, then two spaces. */
export function formatRow(row: CheckRow): string {
  return `${row.status.padEnd(4)}  ${row.name}: ${row.detail}`
}

export function formatText(report: DoctorReport): string {
  return ['svc doctor', '', ...report.checks.map(formatRow), ''].join('\n')
}

export function formatJson(report: DoctorReport): string {
  return JSON.stringify(report, null, 2) + '\n'
}
