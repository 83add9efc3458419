import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ERRORS, SvcError, isSvcError, svcErrorFromData, type SvcErrorCode } from '../../src/errors.js'
import { ApiClientUsageError } from '../../src/client/api-client.js'

/** One row of docs/errors.md: `| \`CODE\` | status | \`error\` | when | how |`, under its `## AREA` heading. */
interface DocRow {
  code: string
  status: number
  error: string
  heading: string
}

function docRows(): DocRow[] {
  const text = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')
  const rows: DocRow[] = []
  let heading = ''
  for (const line of text.split('\n')) {
    if (line.startsWith('## ')) heading = line.slice(3)
    const m = /^\| `(SVC_ERR_[A-Z0-9_]+)` \| (\d{3}) \| `([a-z_]+)` \|([^|]+)\|([^|]+)\|$/.exec(line)
    if (m) rows.push({ code: m[1]!, status: Number(m[2]), error: m[3]!, heading })
  }
  return rows
}

const codes = Object.keys(ERRORS) as SvcErrorCode[]

describe('ERRORS and docs/errors.md stay in step', () => {
  const rows = docRows()
  const byCode = new Map(rows.map((r) => [r.code, r]))

  it('parses the tables (a format change must not make this test vacuous)', () => {
    expect(rows.length).toBeGreaterThanOrEqual(codes.length)
  })

  it('every code has exactly one row', () => {
    for (const code of codes) {
      expect(rows.filter((r) => r.code === code), `docs/errors.md has no row (or several) for ${code}`).toHaveLength(1)
    }
  })

  it('every row names a code of the catalogue', () => {
    for (const row of rows) expect(codes, `docs/errors.md documents ${row.code}, which src/errors.ts does not define`).toContain(row.code)
  })

  it('each row shows the status and error name of its code', () => {
    for (const code of codes) {
      const row = byCode.get(code)
      expect({ code, status: row?.status, error: row?.error }).toEqual({ code, ...ERRORS[code] })
    }
  })

  it('each row sits under the heading of its area', () => {
    for (const row of rows) {
      const area = row.code.split('_')[2]!
      expect(row.heading, `${row.code} is under "## ${row.heading}"`).toContain(area)
    }
  })
})

describe('the catalogue', () => {
  it('codes are SVC_ERR_<AREA>_<WHAT> with an error status and a snake_case name', () => {
    for (const code of codes) {
      expect(code).toMatch(/^SVC_ERR_[A-Z]+_[A-Z0-9_]+$/)
      expect(ERRORS[code].status).toBeGreaterThanOrEqual(400)
      expect(ERRORS[code].status).toBeLessThan(600)
      expect(ERRORS[code].error).toMatch(/^[a-z][a-z_]*$/)
    }
  })
})

describe('SvcError', () => {
  it('carries code, status, name, message and cause', () => {
    const cause = new Error('low level')
    const err = new SvcError('SVC_ERR_PROXY_BODY_TOO_LARGE', 'too big', { cause })
    expect(err).toBeInstanceOf(Error)
    expect(err.name).toBe('SvcError')
    expect(err.code).toBe('SVC_ERR_PROXY_BODY_TOO_LARGE')
    expect(err.status).toBe(413)
    expect(err.message).toBe('too big')
    expect(err.cause).toBe(cause)
  })

  it('is recognised by brand, not by class identity', () => {
    // What a second installed copy of svc produces: another class, the same global brand.
    const foreign = Object.assign(new Error('x'), { [Symbol.for('svc.error')]: true, code: 'SVC_ERR_CONFIG_INVALID' })
    expect(isSvcError(foreign)).toBe(true)
    expect(foreign instanceof SvcError).toBe(true)
    for (const value of [new Error('plain'), { code: 'SVC_ERR_CONFIG_INVALID' }, null, undefined, 'SVC_ERR_CONFIG_INVALID', 42]) {
      expect(isSvcError(value)).toBe(false)
      expect(value instanceof SvcError).toBe(false)
    }
  })

  it('ApiClientUsageError is a TypeError that counts as an svc error', () => {
    const err = new ApiClientUsageError('SVC_ERR_CLIENT_ABSOLUTE_PATH', 'relative paths only')
    expect(err).toBeInstanceOf(TypeError)
    expect(isSvcError(err)).toBe(true)
    expect(err instanceof SvcError).toBe(true)
  })
})

describe('svcErrorFromData (errors that crossed a process boundary)', () => {
  it('rebuilds an SvcError with the same code and message', () => {
    const original = new SvcError('SVC_ERR_TARGET_NOT_FOUND', 'cannot find the app module "nope"')
    const rebuilt = svcErrorFromData(JSON.parse(JSON.stringify({ code: original.code, message: original.message })) as { code: string; message: string })
    expect(rebuilt).toBeInstanceOf(SvcError)
    expect(isSvcError(rebuilt)).toBe(true)
    expect(rebuilt.code).toBe('SVC_ERR_TARGET_NOT_FOUND')
    expect(rebuilt.message).toBe(original.message)
    expect(rebuilt.status).toBe(ERRORS.SVC_ERR_TARGET_NOT_FOUND.status)
  })

  it('round-trips every code of the catalogue', () => {
    for (const code of codes) expect(svcErrorFromData({ code, message: 'm' }).code).toBe(code)
  })

  it('maps an unknown code to SVC_ERR_IPC_BAD_MESSAGE and keeps the message', () => {
    const err = svcErrorFromData({ code: 'SVC_ERR_FROM_THE_FUTURE', message: 'hello' })
    expect(err.code).toBe('SVC_ERR_IPC_BAD_MESSAGE')
    expect(err.message).toBe('hello')
    expect(svcErrorFromData({ code: 'toString', message: 'proto' }).code).toBe('SVC_ERR_IPC_BAD_MESSAGE')
  })
})
