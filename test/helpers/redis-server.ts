import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { randomUUID } from 'node:crypto'
import { REPO } from './svc-process.js'
import { freePort } from './ui-sidecar.js'

export const REDIS_SERVER = '/usr/bin/redis-server'
export const hasRedis = existsSync(REDIS_SERVER)

/** A real redis-server (Debian package) on a loopback port, no persistence, in its own temp dir. */
export class RedisServer {
  readonly port: number
  readonly url: string
  readonly #dir: string
  #proc: ChildProcess | null = null

  private constructor(port: number) {
    this.port = port
    this.url = `redis://127.0.0.1:${port}`
    this.#dir = `${REPO}test/.tmp/redis-${randomUUID()}`
  }

  static async start(port?: number): Promise<RedisServer> {
    const server = new RedisServer(port ?? (await freePort()))
    await server.restart()
    return server
  }

  /** (Re)starts the server on the same port; resolves once it accepts connections. */
  async restart(): Promise<void> {
    if (this.#proc) return
    mkdirSync(this.#dir, { recursive: true })
    const proc = spawn(REDIS_SERVER, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.#dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    this.#proc = proc
    let output = ''
    proc.stdout?.on('data', (d: Buffer) => (output += d.toString()))
    proc.stderr?.on('data', (d: Buffer) => (output += d.toString()))
    const deadline = Date.now() + 10_000
    while (!(await accepts(this.port))) {
      if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server did not start on ${this.port}:\n${output}`)
      await new Promise((r) => setTimeout(r, 25))
    }
  }

  /** SIGKILL (an outage), keeping the port for a restart. */
  async kill(): Promise<void> {
    const proc = this.#proc
    if (!proc) return
    this.#proc = null
    if (proc.exitCode === null) {
      const exited = new Promise((r) => proc.once('exit', r))
      proc.kill('SIGKILL')
      await exited
    }
  }

  async stop(): Promise<void> {
    await this.kill()
    rmSync(this.#dir, { recursive: true, force: true })
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}
