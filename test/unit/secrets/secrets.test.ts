import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { Svc } from '../../../src/app.js'
import { isSvcError } from '../../../src/errors.js'
import { kSecretsReport, loadSecrets, type SecretsReport } from '../../../src/secrets/secrets.js'
import { envSpelling } from '../../../src/secrets/secret-sources.js'
import { scrubSecrets } from '../../../src/logging/secret-scrub.js'
import { secretsRows } from '../../../src/cli/doctor/secrets-check.js'
import type { DoctorContext } from '../../../src/cli/doctor/types.js'
import { createUiTestHandle } from '../../../src/testing/app-test.js'
import { captureLogger } from '../../helpers/observability-log-sink.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-secrets-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function secretsFile(data: unknown, mode = 0o600): Promise<string> {
  await mkdir(join(dir, '.svc'), { recursive: true })
  const file = join(dir, '.svc', 'secrets.json')
  await writeFile(file, typeof data === 'string' ? data : JSON.stringify(data))
  await chmod(file, mode)
  return file
}

const load = <S extends z.ZodType<object> | undefined>(schema: S, env: NodeJS.ProcessEnv = {}) =>
  loadSecrets(schema, { cwd: dir, env, file: '.svc/secrets.json' })

function thrown(fn: () => unknown): Error & { code?: string } {
  try {
    fn()
  } catch (err) {
    return err as Error & { code?: string }
  }
  throw new Error('expected a throw')
}

describe('loadSecrets', () => {
  it('reads the file and SVC_SECRET_* variables; the environment wins; without a schema every name is kept', async () => {
    await secretsFile({ API_KEY: 'file-api-key-1', DB: { user: 'ada', password: 'file-db-password' } })
    const { values, report } = load(undefined, { SVC_SECRET_API_KEY: 'env-api-key-2', SVC_SECRET_EXTRA: 'extra-value-3', SVC_SECRETS_FILE: 'not-a-secret' })
    expect(values).toEqual({ API_KEY: 'env-api-key-2', DB: { user: 'ada', password: 'file-db-password' }, EXTRA: 'extra-value-3' })
    expect(Object.isFrozen(values)).toBe(true)
    expect(Object.isFrozen(values.DB)).toBe(true)
    expect(report.secrets.map((s) => [s.name, s.origin?.kind])).toEqual([
      ['API_KEY', 'env'],
      ['DB', 'file'],
      ['EXTRA', 'env'],
    ])
    expect(JSON.stringify(report)).not.toMatch(/api-key|password|extra-value/)
  })

  it('with a schema: typed values, camelCase keys found under their environment spelling, coercion, optional keys', async () => {
    await secretsFile({ dbUrl: 'postgres://file-user:file-pw@db/x', port: '5432' })
    const schema = z.object({ dbUrl: z.string().url(), apiKey: z.string().min(8), port: z.coerce.number(), sentry: z.string().optional() })
    const { values, report } = load(schema, { SVC_SECRET_API_KEY: 'env-api-key-12345', SVC_SECRET_DB_URL: 'postgres://env-user:env-pw@db/y' })
    expectTypeOf(values).toEqualTypeOf<Readonly<{ dbUrl: string; apiKey: string; port: number; sentry?: string | undefined }>>()
    expect(values).toEqual({ dbUrl: 'postgres://env-user:env-pw@db/y', apiKey: 'env-api-key-12345', port: 5432 })
    expect(report.secrets.map((s) => [s.name, s.present, s.required, s.origin?.kind ?? null])).toEqual([
      ['dbUrl', true, true, 'env'],
      ['apiKey', true, true, 'env'],
      ['port', true, true, 'file'],
      ['sentry', false, false, null],
    ])
    expect(envSpelling('dbUrl')).toBe('DB_URL')
    expect(envSpelling('db-url.v2')).toBe('DB_URL_V2')
  })

  it('a missing or invalid secret throws SVC_ERR_CONFIG_SECRETS naming it and the fix, never the value', async () => {
    await secretsFile({ apiKey: 'short' })
    const schema = z.object({ apiKey: z.string().min(8), dbUrl: z.string() })
    const err = thrown(() => load(schema))
    expect(isSvcError(err) && err.code).toBe('SVC_ERR_CONFIG_SECRETS')
    expect(err.message).toContain('dbUrl is missing: set SVC_SECRET_DB_URL or add "dbUrl" to ' + join(dir, '.svc', 'secrets.json'))
    expect(err.message).toMatch(/apiKey \(from .*secrets\.json\): Too small/)
    expect(err.message).not.toContain('short')
    const report = (err as unknown as Record<symbol, SecretsReport>)[kSecretsReport]!
    expect(report.secrets.map((s) => [s.name, s.present, s.problem !== null])).toEqual([
      ['apiKey', true, true],
      ['dbUrl', false, true],
    ])
  })

  it('a secrets file that is not a JSON object is refused without quoting its text', async () => {
    await secretsFile('{"API_KEY": "quoted-secret-value" oops}')
    const err = thrown(() => load(undefined))
    expect(err.code).toBe('SVC_ERR_CONFIG_SECRETS')
    expect(err.message).toMatch(/is not valid JSON/)
    expect(err.message).not.toContain('quoted-secret-value')
    await secretsFile('["a"]')
    expect(thrown(() => load(undefined)).message).toMatch(/must hold a JSON object of secrets, got an array/)
  })

  it('no file and no variables: empty secrets, report says the file was not found', () => {
    const { values, report } = load(undefined)
    expect(values).toEqual({})
    expect(report).toMatchObject({ fileFound: false, fileMode: null, schema: false, secrets: [] })
  })
})

describe('secret values never reach a log line', () => {
  it('scrubs registered values from messages, fields and errors, raw and JSON-escaped; short values are left alone', async () => {
    await secretsFile({ TOKEN: 'tok-"quoted"-value-123', PIN: '1234' })
    load(undefined)
    const { sink, logger } = captureLogger('svc')
    logger.info({ conn: 'with tok-"quoted"-value-123 inside', pin: '1234' }, 'token is tok-"quoted"-value-123')
    logger.error({ err: new Error('failed with tok-"quoted"-value-123') }, 'boom')
    expect(sink.text()).not.toContain('quoted')
    expect(sink.text()).not.toContain('value-123')
    const [first, second] = sink.records()
    expect(first).toMatchObject({ message: 'token is <redacted>', conn: 'with <redacted> inside', pin: '1234' })
    expect(String(second!.exception)).toContain('failed with <redacted>')
    expect(scrubSecrets('plain line')).toBe('plain line')
  })
})

describe('app.secrets and st.secrets', () => {
  it('new Svc({ secrets }) loads them before its logger exists; pages read st.secrets; the test handle can replace them', async () => {
    const prev = process.cwd()
    process.chdir(dir)
    try {
      await secretsFile({ apiKey: 'page-visible-secret-1' })
      const app = new Svc({ title: 't', secrets: z.object({ apiKey: z.string() }) })
      expectTypeOf(app.secrets.apiKey).toEqualTypeOf<string>()
      expect(app.secrets.apiKey).toBe('page-visible-secret-1')
      app.page('/', (st) => st.text(`key ends ${String(st.secrets.apiKey).slice(-2)}`))
      const at = await createUiTestHandle(app).run()
      expect(at.text[0]!.value).toBe('key ends -1')
      const other = await createUiTestHandle(app, { secrets: { apiKey: 'test-key-99' } }).run()
      expect(other.text[0]!.value).toBe('key ends 99')
      await app.api.close()
    } finally {
      process.chdir(prev)
    }
  })
})

describe('doctor rows', () => {
  const ctx = (secrets: SecretsReport | null): DoctorContext => ({ env: {}, cwd: dir, strict: false, target: 'app:app', settings: null, pidfile: '', running: null, secrets, importModule: (s) => import(s) })

  it('secrets_file and one row per secret: present with its origin, missing with the fix, optional, never a value', async () => {
    await secretsFile({ apiKey: 'doctor-secret-value' }, 0o644)
    const schema = z.object({ apiKey: z.string(), dbUrl: z.string(), sentry: z.string().optional() })
    const report = (thrown(() => load(schema, { SVC_SECRET_SENTRY: 'sentry-dsn-value' })) as unknown as Record<symbol, SecretsReport>)[kSecretsReport]!
    const rows = secretsRows(ctx(report))!
    expect(rows).toEqual([
      { name: 'secrets_file', status: 'WARN', detail: '.svc/secrets.json is readable by other users (mode 644); run: chmod 600 .svc/secrets.json' },
      { name: 'secret:apiKey', status: 'PASS', detail: 'present (.svc/secrets.json)' },
      { name: 'secret:dbUrl', status: 'FAIL', detail: 'missing (the secrets schema requires it); set SVC_SECRET_DB_URL or add "dbUrl" to .svc/secrets.json' },
      { name: 'secret:sentry', status: 'PASS', detail: 'present (environment variable SVC_SECRET_SENTRY)' },
    ])
    expect(JSON.stringify(rows)).not.toMatch(/doctor-secret-value|sentry-dsn-value/)
    expect(secretsRows(ctx(null))).toBeNull()
  })
})
