import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { fileURLToPath } from 'node:url'

const run = promisify(execFile)
const FIXTURE = fileURLToPath(new URL('../helpers/observability-log-fixture.ts', import.meta.url))
const SECRETS = ['SECRET-TOKEN', 'SECRET-COOKIE', 'SECRET-SID', 'SECRET-CODE', 'SECRET-SESS']

async function logsOf(format: 'json' | 'pretty'): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', FIXTURE, format], { timeout: 20_000, env: { ...process.env, NO_COLOR: '1' } })
  return stdout
}

describe('createRootLogger on stdout', () => {
  it('json: one parsable object per line, request_id joined, no secret anywhere', async () => {
    const out = await logsOf('json')
    const lines = out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines.map((l) => l.message)).toEqual(['headers', 'request', 'top-level', 'failure'])
    for (const l of lines) expect(l).toMatchObject({ logger: 'svc.api', request_id: 'fixture-rid' })
    expect(lines[3]!.exception).toEqual(expect.stringContaining('Error: boom'))
    for (const s of SECRETS) expect(out).not.toContain(s)
  })

  it('pretty: human lines with the messages, and still no secret', async () => {
    const out = await logsOf('pretty')
    for (const m of ['headers', 'request', 'top-level', 'failure']) expect(out).toContain(m)
    expect(out).toContain('<redacted>')
    for (const s of SECRETS) expect(out).not.toContain(s)
  })
})
