import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { REPO, SVC_BIN, startSvc, stopAllTrees } from '../helpers/svc-process.js'

/** Usage errors: exit 2, one message naming the bad value and the fix, no colour off a terminal. */
const run = promisify(execFile)
const ESC = '\u001b'
const APP = `${REPO}test/fixtures/app-basic.ts:app`

async function svc(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [SVC_BIN, ...args], { cwd: REPO, env: { ...process.env, ...env }, timeout: 30_000 })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

describe('svc CLI output off a terminal', () => {
  it('help names each flag value after its flag, one column for the descriptions', async () => {
    const r = await svc(['run', '--help'])
    expect(r.stdout).not.toContain('#0')
    const rows = r.stdout.split('\n').filter((l) => /^ {2}--/.test(l))
    expect(rows).toContain('  --port <port>                Public port (default 8000; 0 picks a free one).')
    expect(new Set(rows.map((l) => l.search(/ {4}\S/))).size, rows.join('\n')).toBe(1)
    expect((await svc(['--help'])).stdout).toContain('svc run [--host <host>] [--port <port>]')
  })

  it('svc --help and svc run --help have no ANSI escape codes when piped or with NO_COLOR', async () => {
    for (const env of [{}, { NO_COLOR: '1' }] as Array<Record<string, string>>) {
      for (const args of [['--help'], ['run', '--help']]) {
        const r = await svc(args, env)
        expect(r.code).toBe(0)
        expect(r.stdout).toContain('svc run')
        expect(r.stdout.includes(ESC), `${args.join(' ')} ${JSON.stringify(env)}`).toBe(false)
      }
    }
  })
})

describe('svc usage errors', () => {
  afterEach(stopAllTrees)

  const cases: Array<{ args: string[]; says: RegExp[] }> = [
    { args: ['run', APP, '--bogus'], says: [/unknown flag "--bogus" for "svc run"; see "svc run --help"/] },
    { args: ['run', '--bogus'], says: [/^svc: unknown flag "--bogus" for "svc run"; see "svc run --help" for its flags\n$/] },
    { args: ['run', APP, '--prot', '8000'], says: [/^svc: unknown flag "--prot" for "svc run" \(did you mean "--port"\?\); see "svc run --help" for its flags\n$/] },
    { args: ['dev', APP, '--relaod'], says: [/\(did you mean "--reload"\?\)/] },
    { args: ['frobnicate'], says: [/Command not found/, /svc --help/] },
    { args: ['run', APP, '--port'], says: [/flag --port needs a value/, /svc run --help/] },
    { args: ['doctor', APP, '--strictly'], says: [/unknown flag "--strictly" for "svc doctor"/] },
    { args: ['run', APP, '--workers', 'abc', '--no-pidfile'], says: [/flag --workers: "abc" is not valid for workers/, /must be an integer from 1 to 64/] },
    { args: ['run', APP, '--workers', '0', '--no-pidfile'], says: [/flag --workers: 0 is not valid for workers/, /must be an integer from 1 to 64/] },
    { args: ['run', APP, '--log-format', 'xml', '--no-pidfile'], says: [/flag --log-format: "xml" is not valid/, /"json"\|"pretty"/] },
    { args: ['run', APP, '--log-level', 'loud', '--no-pidfile'], says: [/flag --log-level: "loud" is not valid/, /"info"/] },
    { args: ['run', APP, '--port', '99999', '--no-pidfile'], says: [/flag --port: 99999 is not valid/, /must be a port from 0 to 65535/] },
    { args: ['run', APP, '--port', '1e3', '--no-pidfile'], says: [/flag --port: "1e3" is not valid for gateway_port: must be a port from 0 to 65535, written as plain decimal digits like 8000/] },
    { args: ['dev', APP, '--port', '0x50', '--no-pidfile'], says: [/flag --port: "0x50" is not valid for gateway_port: must be a port from 0 to 65535, written as plain decimal digits/] },
    { args: ['dev', APP, '--reload', '--reload-scope', 'all', '--no-pidfile'], says: [/--reload-scope must be 'gateway' or 'full' \(got "all"\)/] },
    { args: ['run', 'no-such-app.ts:app', '--no-pidfile'], says: [/cannot find the app module "no-such-app.ts"/, /pass the file/] },
  ]

  it.each(cases)('svc $args.0 … $args.2 exits 2 naming the value and the fix', async ({ args, says }) => {
    const r = await svc(args)
    expect(r.code).toBe(2)
    for (const re of says) expect(r.stderr).toMatch(re)
    expect(r.stderr.includes(ESC)).toBe(false)
  })

  it('an unresolvable --host is its own usage error (SVC_ERR_PROCESS_HOST_UNRESOLVABLE), exit 2, one line', async () => {
    const tree = await startSvc({ args: ['--host', 'no-such-host.invalid', '--log-format', 'json'], noWait: true })
    expect(await tree.exited).toBe(2)
    const lines = tree.stderr.filter((l) => l.trim() !== '')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^svc: error: cannot resolve the bind host "no-such-host\.invalid" \(--host .*\); pass an IP address such as 127\.0\.0\.1/)
    const record = tree.stdout.map((l) => JSON.parse(l) as { code?: string }).find((r) => r.code !== undefined)
    expect(record?.code).toBe('SVC_ERR_PROCESS_HOST_UNRESOLVABLE')
  })
})
