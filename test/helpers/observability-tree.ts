import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/**
 * A real `svc run` tree (supervisor, the fixture sidecar as ui_command, gateway workers) serving
 * test/helpers/observability-app.ts on a free port. Every process logs to the supervisor's
 * stdout/stderr, which is kept raw and as parsed JSON lines.
 */
export class SvcTree {
  readonly lines: Record<string, unknown>[] = []
  output = ''
  base = ''
  readonly #child: ChildProcess
  readonly #waiters = new Set<() => void>()

  constructor(args: string[], env: Record<string, string>) {
    this.#child = spawn(
      process.execPath,
      ['bin/svc.js', 'run', 'test/helpers/observability-app.ts:app', '--port', '0', '--no-pidfile', ...args],
      {
        cwd: ROOT,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          SVC_UI_COMMAND: JSON.stringify(['node', 'test/helpers/observability-sidecar.mjs', '{port}']),
          SVC_UI_HEALTH_PATH: '/',
          SVC_LOG_FORMAT: 'json',
          ...env,
        },
      },
    )
    this.#collect(this.#child.stdout!)
    this.#collect(this.#child.stderr!)
  }

  /** Wait for the listening line; sets `base`. */
  async started(): Promise<void> {
    const port = await this.waitFor('the listening line', () => /svc: listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(this.output)?.[1], 25_000)
    this.base = `http://127.0.0.1:${port}`
  }

  /** Resolve with `probe()` once it is defined, re-checked on each output chunk; reject at the deadline. */
  waitFor<T>(what: string, probe: () => T | undefined, ms = 15_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const v = probe()
        if (v === undefined) return false
        clearTimeout(timer)
        this.#waiters.delete(onChange)
        resolve(v)
        return true
      }
      const onChange = (): void => void check()
      const timer = setTimeout(() => {
        this.#waiters.delete(onChange)
        reject(new Error(`timed out waiting for ${what}; output so far:\n${this.output.slice(-4000)}`))
      }, ms)
      if (!check()) this.#waiters.add(onChange)
    })
  }

  linesFor(requestId: string, logger: string): Record<string, unknown>[] {
    return this.lines.filter((l) => l.request_id === requestId && l.logger === logger)
  }

  /** SIGTERM (graceful: the supervisor stops its children), SIGKILL of the group after 12 s. */
  async stop(): Promise<void> {
    const child = this.#child
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    child.kill('SIGTERM')
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // the group is already gone
      }
    }, 12_000)
    await exited
    clearTimeout(timer)
  }

  #collect(stream: NodeJS.ReadableStream): void {
    let partial = ''
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => {
      this.output += chunk
      partial += chunk
      const parts = partial.split('\n')
      partial = parts.pop()!
      for (const l of parts) if (l.startsWith('{')) this.lines.push(JSON.parse(l) as Record<string, unknown>)
      for (const w of this.#waiters) w()
    })
  }
}
