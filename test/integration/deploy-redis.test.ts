import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { once } from 'node:events'
import { connect } from 'node:net'
import { randomUUID } from 'node:crypto'
import { promisify } from 'node:util'
import pino from 'pino'
import { parseAllDocuments } from 'yaml'
import { RedisConnection } from '../../src/shared-state/redis-connection.js'
import { hasRedis, REDIS_SERVER } from '../helpers/redis-server.js'
import { REPO } from '../helpers/svc-process.js'
import { freePort } from '../helpers/ui-sidecar.js'

/**
 * deploy/kubernetes/redis.yaml run for real: redis-server (Debian) with the manifest's own
 * arguments, the password expanded from the Secret as Kubernetes does, on a loopback port. svc
 * connects with the Secret's URL; without the password Redis refuses; the readiness probe's
 * `redis-cli ping` authenticates through REDISCLI_AUTH.
 */
interface Doc {
  kind: string
  metadata: { name: string }
  stringData?: Record<string, string>
  spec?: { template: { spec: { containers: { name: string; args: string[]; readinessProbe: { exec: { command: string[] } } }[] } } }
}

const docs = parseAllDocuments(readFileSync(`${REPO}deploy/kubernetes/redis.yaml`, 'utf8')).map((d) => d.toJS() as Doc)
const secret = docs.find((d) => d.kind === 'Secret' && d.metadata.name === 'svc-redis')!.stringData!
const container = docs.find((d) => d.kind === 'Deployment')!.spec!.template.spec.containers.find((c) => c.name === 'redis')!

describe.skipIf(!hasRedis)('deploy/kubernetes/redis.yaml: the reference Redis has a password', () => {
  let proc: ChildProcess
  let port = 0
  const dir = `${REPO}test/.tmp/deploy-redis-${randomUUID()}`
  const logger = pino({ level: 'silent' })
  const open: RedisConnection[] = []
  /** The Secret's URL, pointed at the loopback port instead of the Service name. */
  const urlFor = (url: string): string => {
    const u = new URL(url)
    u.hostname = '127.0.0.1'
    u.port = String(port)
    return u.toString()
  }
  const connection = (url: string): RedisConnection => {
    const c = new RedisConnection({ url, keyPrefix: 'deploy:', timeoutMs: 1_000, maxValueBytes: 1024 * 1024, logger })
    open.push(c)
    return c
  }

  beforeAll(async () => {
    mkdirSync(dir, { recursive: true })
    port = await freePort()
    // $(REDIS_PASSWORD) is expanded by Kubernetes from the container's env (the Secret's password).
    const args = container.args.map((a) => a.replace('$(REDIS_PASSWORD)', secret.password!))
    proc = spawn(REDIS_SERVER, [...args, '--port', String(port), '--bind', '127.0.0.1', '--dir', dir], { stdio: 'ignore' })
    const deadline = Date.now() + 10_000
    while (!(await accepts(port))) {
      if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server with the manifest's args did not start (exit ${proc.exitCode})`)
      await new Promise((r) => setTimeout(r, 25))
    }
  })
  afterAll(async () => {
    await Promise.all(open.map((c) => c.destroy()))
    if (proc && proc.exitCode === null) {
      proc.kill('SIGKILL')
      await once(proc, 'exit')
    }
    rmSync(dir, { recursive: true, force: true })
  })

  it('svc connects with the URL from the Secret and can write', async () => {
    const probe = await connection(urlFor(secret.url!)).probe()
    expect(probe).toMatchObject({ ok: true, writeRefused: null })
  })

  it('without the password Redis refuses every command', async () => {
    const u = new URL(urlFor(secret.url!))
    u.username = ''
    u.password = ''
    const probe = await connection(u.toString()).probe()
    expect(probe.ok).toBe(false)
    expect(probe.detail).toMatch(/NOAUTH|Authentication required/i)
  })

  it("the readiness probe's redis-cli ping authenticates with REDISCLI_AUTH", async () => {
    const [cli, ...cliArgs] = container.readinessProbe.exec.command
    const run = promisify(execFile)
    const withAuth = await run(cli!, ['-p', String(port), ...cliArgs], { env: { ...process.env, REDISCLI_AUTH: secret.password } })
    expect(withAuth.stdout.trim()).toBe('PONG')
    const without = await run(cli!, ['-p', String(port), ...cliArgs], { env: { ...process.env, REDISCLI_AUTH: '' } })
    expect(without.stdout).toMatch(/NOAUTH/)
  })
})

function accepts(p: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port: p, host: '127.0.0.1' })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}
