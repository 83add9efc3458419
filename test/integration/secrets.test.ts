import { chmod, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { REPO, startSvc, stopAllTrees } from '../helpers/svc-process.js'
import { runSvcCli, tempDir } from '../helpers/cli-run.js'
import { PageClient } from '../helpers/ui-sidecar.js'

/**
 * Secrets under a real tree, in a fresh folder: `svc run` (gateway, page server, page threads),
 * `svc doctor` and `svc config` see them by name only; no log line, no debug snapshot and no CLI
 * output carries a value.
 */
const TOKEN = 'tok-env-0123456789abcdef'
const DB_URL = 'postgres://app:db-password-from-file@db.internal/app'
const VALUES = [TOKEN, DB_URL, 'db-password-from-file']

async function project(): Promise<string> {
  const dir = await tempDir('svc-secrets-run-')
  await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n')
  await writeFile(
    join(dir, 'app.ts'),
    `import { Svc } from ${JSON.stringify(`${REPO}dist/src/app.js`)}
import { z } from ${JSON.stringify(`${REPO}node_modules/zod/index.js`)}
export const app = new Svc({
  title: 'Secrets',
  secrets: z.object({ apiToken: z.string().min(12), dbUrl: z.string().url(), sentryDsn: z.string().optional() }),
})
app.api.get('/leak', async (req) => {
  req.log.info({ token: app.secrets.apiToken, conn: { url: app.secrets.dbUrl } }, 'calling upstream with ' + app.secrets.apiToken)
  throw new Error('cannot connect to ' + app.secrets.dbUrl)
})
app.page('/', (st) => {
  app.logger.warn({ seen: st.secrets.apiToken }, 'page sees ' + st.secrets.dbUrl)
  st.text('token length ' + String(st.secrets.apiToken).length)
})
`,
  )
  await mkdir(join(dir, '.svc'))
  await writeFile(join(dir, '.svc', 'secrets.json'), JSON.stringify({ dbUrl: DB_URL }))
  await chmod(join(dir, '.svc', 'secrets.json'), 0o600)
  return dir
}

function expectNoValue(text: string): void {
  for (const v of VALUES) expect(text).not.toContain(v)
}

/** The issue's secret: a quote and a backslash, so every encoding spells it differently. */
const ISSUE_KEY = 'sk_live_SuperSecret"Value\\42xyz'

async function encodingsProject(): Promise<string> {
  const dir = await tempDir('svc-secrets-encoded-')
  await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n')
  await writeFile(
    join(dir, 'app.ts'),
    `import { Svc } from ${JSON.stringify(`${REPO}dist/src/app.js`)}
export const app = new Svc({ title: 'Encoded secrets', show_error_details: true })
app.page('/', (st) => {
  const k = String(st.secrets.apiKey)
  app.logger.warn('uri ' + encodeURIComponent(k) + ' twice ' + encodeURIComponent(encodeURIComponent(k)))
  app.logger.warn('b64 ' + Buffer.from('x' + k).toString('base64') + ' hex ' + Buffer.from(k).toString('hex'))
  app.logger.warn({ nested: JSON.stringify(JSON.stringify({ k })) }, 'split ' + k.slice(0, 9) + '\\n' + k.slice(9))
  throw new Error('cfg ' + JSON.stringify({ k: st.secrets.apiKey }))
})
`,
  )
  await mkdir(join(dir, '.svc'))
  await writeFile(join(dir, '.svc', 'secrets.json'), JSON.stringify({ apiKey: ISSUE_KEY }))
  await chmod(join(dir, '.svc', 'secrets.json'), 0o600)
  return dir
}

describe('secrets in a real svc tree', () => {
  afterEach(stopAllTrees, 30_000)

  it('issue #34.1: a secret JSON-escaped, URL-encoded, base64, hex or split across lines never reaches a log line or the page', async () => {
    const dir = await encodingsProject()
    const svc = await startSvc({ cwd: dir, target: 'app.ts:app', env: { SVC_UI_COMMAND: undefined, SVC_LOG_FORMAT: 'json' } })
    const page = await new PageClient(`${svc.url.replace('http:', 'ws:')}/_stcore/stream`).open()
    page.send({ type: 'hello', sessionId: null, path: '/', query: '' })
    const render = await page.render(20_000)
    await page.close()
    const shown = render.main.find((n) => n.type === 'exception')
    expect(shown?.props.message).toBe('cfg {"k":"<redacted>"}')
    await svc.waitForLine('stdout', /"message":"ui page exception"/)
    await svc.waitForLine('stdout', /"message":"split <redacted>"/)
    await svc.stop()
    const out = [...svc.stdout, ...svc.stderr].join('\n')
    const k = ISSUE_KEY
    const spellings = [
      k, JSON.stringify(k).slice(1, -1), JSON.stringify(JSON.stringify(k)).slice(1, -1), encodeURIComponent(k), encodeURIComponent(encodeURIComponent(k)),
      Buffer.from('x' + k).toString('base64').slice(4, -4), Buffer.from(k).toString('hex'), JSON.stringify(k.slice(0, 9) + '\n' + k.slice(9)).slice(1, -1),
    ]
    for (const s of spellings) expect(out, s).not.toContain(s)
    // Not even a piece of it, once escapes are taken out.
    expect(out.replace(/\\/g, '')).not.toContain('SuperSecret')
    expect(out).toContain('cfg {\\"k\\":\\"<redacted>\\"}')
  }, 60_000)

  it('svc run: pages and routes use them; logs of every process and the debug snapshot never show a value', async () => {
    const dir = await project()
    const svc = await startSvc({ cwd: dir, target: 'app.ts:app', args: ['--debug'], env: { SVC_UI_COMMAND: undefined, SVC_SECRET_API_TOKEN: TOKEN, SVC_LOG_FORMAT: 'json' } })
    const leak = await fetch(`${svc.url}/api/leak`)
    expect(leak.status).toBe(500)
    const page = await new PageClient(`${svc.url.replace('http:', 'ws:')}/_stcore/stream`).open()
    page.send({ type: 'hello', sessionId: null, path: '/', query: '' })
    const render = await page.render(20_000)
    await page.close()
    expect(render.main.find((n) => n.type === 'text')?.props.text).toBe(`token length ${TOKEN.length}`)
    const debug = await (await fetch(`${svc.url}/__svc/debug`)).text()
    expect(debug).toContain('secrets_file')
    expectNoValue(debug)
    // The lines that would carry them are there, scrubbed: the API log, the error and the page thread's line.
    await svc.waitForLine('stdout', /"message":"calling upstream with <redacted>"/)
    await svc.waitForLine('stdout', /cannot connect to <redacted>/)
    await svc.waitForLine('stdout', /"message":"page sees <redacted>"/)
    await svc.stop()
    expectNoValue([...svc.stdout, ...svc.stderr].join('\n'))
  }, 60_000)

  it('svc run refuses to start without a required secret, naming it and the fix (exit 2); the message has no value', async () => {
    const dir = await project()
    const svc = await startSvc({ cwd: dir, target: 'app.ts:app', noWait: true, env: { SVC_UI_COMMAND: undefined } })
    expect(await svc.exited).toBe(2)
    const out = [...svc.stdout, ...svc.stderr].join('\n')
    expect(out).toContain('apiToken is missing: set SVC_SECRET_API_TOKEN or add "apiToken" to')
    expectNoValue(out)
  }, 60_000)

  it('svc doctor lists each secret as present or missing, without values; svc config shows them redacted', async () => {
    const dir = await project()
    const ok = await runSvcCli(['doctor', '--json'], { cwd: dir, env: { SVC_SECRET_API_TOKEN: TOKEN } })
    expectNoValue(ok.stdout + ok.stderr)
    const rows = (JSON.parse(ok.stdout) as { checks: { name: string; status: string; detail: string }[] }).checks.filter((c) => c.name.startsWith('secret'))
    expect(rows).toEqual([
      { name: 'secrets_file', status: 'PASS', detail: '.svc/secrets.json (1 secret(s) used from it)' },
      { name: 'secret:apiToken', status: 'PASS', detail: 'present (environment variable SVC_SECRET_API_TOKEN)' },
      { name: 'secret:dbUrl', status: 'PASS', detail: 'present (.svc/secrets.json)' },
      { name: 'secret:sentryDsn', status: 'PASS', detail: 'not set (optional)' },
    ])

    const missing = await runSvcCli(['doctor'], { cwd: dir })
    expect(missing.code).toBe(1)
    expect(missing.stdout).toMatch(/FAIL {2}import_target: invalid secrets \(values are not shown\)/)
    expect(missing.stdout).toContain('FAIL  secret:apiToken: missing (the secrets schema requires it); set SVC_SECRET_API_TOKEN or add "apiToken" to .svc/secrets.json')
    expect(missing.stdout).toContain('PASS  secret:dbUrl: present (.svc/secrets.json)')
    expectNoValue(missing.stdout + missing.stderr)

    for (const args of [['config', '--json'], ['config']]) {
      const r = await runSvcCli(args, { cwd: dir, env: { SVC_SECRET_API_TOKEN: TOKEN } })
      expect(r.code, r.stderr).toBe(0)
      expectNoValue(r.stdout + r.stderr)
    }
    const config = JSON.parse((await runSvcCli(['config', '--json'], { cwd: dir, env: { SVC_SECRET_API_TOKEN: TOKEN } })).stdout) as { secrets: unknown }
    expect(config.secrets).toEqual([
      { name: 'apiToken', value: '<redacted>', source: 'env', from: 'SVC_SECRET_API_TOKEN' },
      { name: 'dbUrl', value: '<redacted>', source: 'file', from: join(dir, '.svc', 'secrets.json') },
      { name: 'sentryDsn', value: null, source: null, from: null },
    ])
    const text = (await runSvcCli(['config'], { cwd: dir, env: { SVC_SECRET_API_TOKEN: TOKEN } })).stdout
    expect(text).toContain('\nsecrets:\n  apiToken  <redacted>  env (SVC_SECRET_API_TOKEN)\n')
  }, 60_000)
})
