import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterEach, describe, expect, it } from 'vitest'

const FIXTURE = join(import.meta.dirname, '..', '..', 'fixtures', 'run-process.mjs')
const DEADLINE_MS = 15_000

/** A process main on runProcess (test/fixtures/run-process.mjs) and the lines it says. */
class Main {
  readonly child: ChildProcess
  readonly lines: string[] = []
  stderr = ''
  readonly #waiters: { line: string; resolve: () => void }[] = []
  readonly exited: Promise<number | null>

  constructor(mode: string, ipc = false) {
    this.child = spawn(process.execPath, [FIXTURE, mode], { stdio: ipc ? ['pipe', 'pipe', 'pipe', 'ipc'] : ['pipe', 'pipe', 'pipe'] })
    this.exited = once(this.child, 'exit').then(([code]) => code as number | null)
    this.child.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()))
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      this.lines.push(line)
      for (const w of this.#waiters.filter((w) => line.includes(w.line))) w.resolve()
    })
  }

  /** Resolves when a line containing `text` was said (now or earlier); fails after the deadline. */
  said(text: string): Promise<void> {
    if (this.lines.some((l) => l.includes(text))) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no line with ${JSON.stringify(text)}; said: ${JSON.stringify(this.lines)}`)), DEADLINE_MS)
      this.#waiters.push({ line: text, resolve: () => (clearTimeout(timer), resolve()) })
    })
  }
}

const started: Main[] = []
function start(mode: string, ipc = false): Main {
  const main = new Main(mode, ipc)
  started.push(main)
  return main
}

afterEach(() => {
  for (const m of started.splice(0)) if (m.child.exitCode === null && m.child.signalCode === null) m.child.kill('SIGKILL')
})

describe('runProcess', () => {
  it('sets the title and closes the part on SIGTERM; exit runs beforeExit and ends with the code', async () => {
    const main = start('')
    await main.said('ready')
    main.child.kill('SIGTERM')
    expect(await main.exited).toBe(0)
    expect(main.lines).toEqual(['ready', 'close', 'before-exit'])
  })

  it('first Ctrl-C closes (with the notice), the second destroys', async () => {
    const main = start('drain')
    await main.said('ready')
    main.child.kill('SIGINT')
    await main.said('close')
    main.child.kill('SIGINT')
    expect(await main.exited).toBe(1)
    expect(main.lines).toEqual(['ready', 'close', 'destroy', 'before-exit'])
    expect(main.stderr).toContain('Ctrl-C again to force')
  })

  it('SIGHUP asks for the graceful stop too', async () => {
    const main = start('')
    await main.said('ready')
    main.child.kill('SIGHUP')
    expect(await main.exited).toBe(0)
    expect(main.lines).toContain('close')
  })

  it('closes the part when the parent closes the IPC channel', async () => {
    const main = start('', true)
    await main.said('ready')
    main.child.disconnect()
    expect(await main.exited).toBe(0)
    expect(main.lines).toEqual(['ready', 'close', 'before-exit'])
  })

  it('a stop asked for before the part is served is applied when it is', async () => {
    const main = start('late')
    await main.said('ready')
    main.child.kill('SIGTERM')
    await main.said('got SIGTERM')
    main.child.stdin!.write('serve\n')
    expect(await main.exited).toBe(0)
    expect(main.lines).toEqual(['ready', 'got SIGTERM', 'stop-requested true', 'close', 'before-exit'])
  })

  it('a second Ctrl-C before the part exists exits 1 after the last words', async () => {
    const main = start('late')
    await main.said('ready')
    main.child.kill('SIGINT')
    await main.said('got SIGINT')
    main.child.kill('SIGINT')
    expect(await main.exited).toBe(1)
    expect(main.lines).toEqual(['ready', 'got SIGINT', 'forced-exit'])
  })

  it('an uncaught error is logged fatal on the process logger, then the process exits 1', async () => {
    const main = start('throw')
    expect(await main.exited).toBe(1)
    const fatal = main.lines.map((l) => (l.startsWith('{') ? (JSON.parse(l) as { level: number; msg: string }) : null)).find((r) => r?.level === 60)
    expect(fatal?.msg).toBe('uncaught exception; the fixture exits 1')
    expect(main.stderr).toContain('nobody caught me')
  })
})
