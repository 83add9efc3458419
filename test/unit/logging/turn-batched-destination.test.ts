import { afterEach, describe, expect, it } from 'vitest'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { pino } from 'pino'
import { createTurnBatchedDestination } from '../../../src/logging/turn-batched-destination.js'
import { createAccessLogWriter } from '../../../gateway/observability/access-log.js'
import { jsonLogOptions } from '../../../src/logging/logger.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function tempFile(): { path: string; fd: number; read: () => string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tbd-'))
  dirs.push(dir)
  const path = join(dir, 'out.log')
  const fd = openSync(path, 'w')
  return { path, fd, read: () => readFileSync(path, 'utf8') }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('turn-batched stdout destination', () => {
  it('writes nothing during the turn and everything, in order, when the turn ends', async () => {
    const out = tempFile()
    const dest = createTurnBatchedDestination(out.fd)
    dest.write('one\n')
    dest.deferLine((n: number) => `deferred ${n}\n`, 2)
    dest.write('three ✓ ünïcode 😀\n')
    dest.deferLine((n: number) => `deferred ${n}\n`, 4)
    expect(out.read()).toBe('')
    await nextTurn()
    expect(out.read()).toBe('one\ndeferred 2\nthree ✓ ünïcode 😀\ndeferred 4\n')
    closeSync(out.fd)
  })

  it('writes at once when a turn logs more than its buffer holds, and keeps very long lines whole', async () => {
    const out = tempFile()
    const dest = createTurnBatchedDestination(out.fd)
    const line = 'x'.repeat(1000) + '\n'
    for (let i = 0; i < 100; i++) dest.write(line)
    expect(out.read().length).toBeGreaterThan(0)
    const huge = 'é'.repeat(100_000) + '\n'
    dest.write(huge)
    await nextTurn()
    expect(out.read()).toBe(line.repeat(100) + huge)
    closeSync(out.fd)
  })

  it('flushSync and pino flush write what is pending', async () => {
    const out = tempFile()
    const dest = createTurnBatchedDestination(out.fd)
    const logger = pino(jsonLogOptions('info'), dest)
    logger.info('first')
    dest.deferLine(() => 'deferred\n', null)
    await new Promise<void>((resolve) => logger.flush(() => resolve()))
    const lines = out.read().trim().split('\n')
    expect(JSON.parse(lines[0]!).message).toBe('first')
    expect(lines[1]).toBe('deferred')
    closeSync(out.fd)
  })

  it('formats access-log records at the end of the turn with the time the response ended', async () => {
    const out = tempFile()
    const logger = pino(jsonLogOptions('info'), createTurnBatchedDestination(out.fd)).child({ logger: 'svc.gateway' })
    const write = createAccessLogWriter(logger, 'info')
    const before = Date.now()
    write({ requestId: 'rid-1', dispatch: 'ui', methodKind: 'GET', methodOrType: 'GET', path: '/a', query: '' }, '', 200, 0.5, undefined)
    logger.info('after the access line')
    await nextTurn()
    const [access, after] = out.read().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(access).toMatchObject({ request_id: 'rid-1', path: '/a', status: 200, message: 'gateway GET /a request_id=rid-1' })
    expect(Date.parse(access!.time as string)).toBeGreaterThanOrEqual(before)
    expect(after!.message).toBe('after the access line')
    closeSync(out.fd)
  })

  it.each([
    ['process.exit() in the same turn', 'process.exit(3)', 3],
    ['an uncaught exception in the same turn', "throw new Error('boom')", 1],
  ])('flushes pending lines on %s', (_name, ending, code) => {
    const script = `
      import { childLogger, createRootLogger } from './src/logging/logger.ts'
      const log = childLogger(createRootLogger({ log_level: 'info', log_format: 'json' }), 'svc.test')
      for (let i = 0; i < 3; i++) log.info({ i }, 'line ' + i)
      ${ending}
    `
    let stdout = ''
    try {
      execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    } catch (err) {
      const e = err as { status: number; stdout: string }
      expect(e.status).toBe(code)
      stdout = e.stdout
    }
    expect(stdout.trim().split('\n').map((l) => (JSON.parse(l) as { message: string }).message)).toEqual(['line 0', 'line 1', 'line 2'])
  })
})
