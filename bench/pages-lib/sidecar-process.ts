import { fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { freeLoopbackPort as freePort } from '../../supervisor/bind.js'

const ROOT = join(import.meta.dirname, '..', '..')
const SIDECAR_MAIN = join(ROOT, 'dist', 'src', 'ui', 'server', 'main.js')
const HEALTH_DEADLINE_MS = 20_000

/** The bundled page server as `svc run` starts it: forked (IPC present, so it dies with us), on loopback. */
export class SidecarProcess {
  readonly #proc: ChildProcess
  readonly port: number
  #stderr = ''

  private constructor(proc: ChildProcess, port: number) {
    this.#proc = proc
    this.port = port
    proc.stderr!.on('data', (d: Buffer) => (this.#stderr += d.toString()))
    proc.stdout!.resume()
  }

  static async start(app: string, env: Record<string, string> = {}): Promise<SidecarProcess> {
    const port = await freePort()
    const proc = fork(SIDECAR_MAIN, [], {
      cwd: ROOT,
      env: { ...process.env, SVC_APP: app, SVC_UI_PORT: String(port), SVC_UI_HOST: '127.0.0.1', SVC_ROOT_PATH: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    })
    const sidecar = new SidecarProcess(proc, port)
    try {
      await sidecar.#waitHealthy()
    } catch (err) {
      await sidecar.stop()
      throw err
    }
    return sidecar
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}/_stcore/stream`
  }

  /** Resident set size in bytes (VmRSS of /proc/<pid>/status). */
  rss(): number {
    const status = readFileSync(`/proc/${this.#proc.pid}/status`, 'utf8')
    const kb = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)
    if (!kb) throw new Error(`no VmRSS in /proc/${this.#proc.pid}/status`)
    return Number(kb[1]) * 1024
  }

  async stop(): Promise<void> {
    const p = this.#proc
    if (p.exitCode !== null || p.signalCode !== null) return
    const exited = once(p, 'exit')
    p.kill('SIGTERM')
    const timer = setTimeout(() => p.kill('SIGKILL'), 5000)
    await exited
    clearTimeout(timer)
  }

  async #waitHealthy(): Promise<void> {
    const deadline = Date.now() + HEALTH_DEADLINE_MS
    for (;;) {
      if (this.#proc.exitCode !== null) throw new Error(`sidecar exited ${this.#proc.exitCode}: ${this.#stderr}`)
      try {
        if ((await fetch(`http://127.0.0.1:${this.port}/_stcore/health`)).status === 200) return
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`sidecar not healthy within ${HEALTH_DEADLINE_MS} ms: ${this.#stderr}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
}
