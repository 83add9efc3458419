import { afterAll, describe, expect, it } from 'vitest'
import { type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { request } from 'undici'
import { descendants, fdTargets, startSvc, stopAllTrees, REPO } from '../helpers/svc-process.js'
import { NGINX, startNginx, stopNginx } from '../helpers/nginx.js'

/**
 * deploy/nginx/*.conf keep idle upstream connections for less time than the gateway does
 * (gateway_keepalive_timeout_s, 5 s), so nginx is the side that closes them. The other way round,
 * nginx sometimes sends a request on a connection the gateway is closing: a 502, and with
 * max_fails=1 a healthy replica skipped for fail_timeout (seen in CI as a failed failover).
 * Which side closed a TCP connection first is a fact the kernel keeps: that side's socket is the
 * one in TIME_WAIT.
 */
const APP = `${REPO}test/fixtures/app-replica.ts:app`

interface TcpSocket { local: number; remote: number; state: string; inode: number }

/** IPv4 and IPv6 sockets of this network namespace (/proc/net/tcp{,6}): ports, state (hex), inode. */
function tcpSockets(): TcpSocket[] {
  const out: TcpSocket[] = []
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(file)) continue
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/)
      if (f.length < 10) continue
      const port = (addr: string): number => parseInt(addr.split(':')[1]!, 16)
      out.push({ local: port(f[1]!), remote: port(f[2]!), state: f[3]!, inode: Number(f[9]) })
    }
  }
  return out
}

const ESTABLISHED = '01'
const TIME_WAIT = '06'

/** Socket inodes held open by `pids`. */
function socketInodes(pids: number[]): Set<number> {
  const inodes = new Set<number>()
  for (const target of pids.flatMap(fdTargets)) {
    const m = /^socket:\[(\d+)\]$/.exec(target)
    if (m) inodes.add(Number(m[1]))
  }
  return inodes
}

describe.skipIf(!existsSync(NGINX) || !existsSync('/proc/net/tcp'))('deploy/nginx: nginx closes idle upstream connections before the gateway does', () => {
  const dirs: string[] = []
  const nginxes: ChildProcess[] = []

  afterAll(async () => {
    await Promise.all(nginxes.map((p) => stopNginx(p)))
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
    await stopAllTrees()
  })

  it.each([
    { file: 'svc-root.conf', rootPath: '' },
    { file: 'svc-subpath.conf', rootPath: '/tools' },
  ])('$file', async ({ file, rootPath }) => {
    const svc = await startSvc({ target: APP, args: ['--proxy-headers', ...(rootPath ? ['--root-path', rootPath] : [])], env: { SVC_UI_COMMAND: '', REPLICA: 'K' } })
    const dir = `${REPO}test/.tmp/deploy-nginx-keepalive-${randomUUID()}`
    dirs.push(dir)
    const { proc: nginx, base } = await startNginx(dir, file, [svc.port, svc.port])
    nginxes.push(nginx)
    const res = await request(`${base}${rootPath}/api/healthz`)
    await res.body.dump()
    expect(res.statusCode).toBe(200)

    // nginx's idle upstream connections to the replica: its worker's sockets whose far end is the gateway.
    const workers = descendants(nginx.pid!)
    const held = socketInodes(workers)
    const upstream = tcpSockets().filter((s) => s.remote === svc.port && s.state === ESTABLISHED && held.has(s.inode))
    expect(upstream.length, `nginx worker(s) ${workers.join(', ')} hold no connection to the replica's port ${svc.port}`).toBeGreaterThan(0)

    // Both keep-alive timers run out within seconds; wait until each connection is closed by one side.
    const closedBy = (c: TcpSocket): 'nginx' | 'gateway' | null => {
      const now = tcpSockets()
      if (now.some((s) => s.state === TIME_WAIT && s.local === c.local && s.remote === c.remote)) return 'nginx'
      if (now.some((s) => s.state === TIME_WAIT && s.local === c.remote && s.remote === c.local)) return 'gateway'
      return null
    }
    const deadline = Date.now() + 20_000
    const verdicts = new Map<number, 'nginx' | 'gateway'>()
    while (verdicts.size < upstream.length && Date.now() < deadline) {
      for (const c of upstream) {
        const by = verdicts.has(c.local) ? null : closedBy(c)
        if (by) verdicts.set(c.local, by)
      }
      await new Promise((r) => setTimeout(r, 100))
    }
    expect([...verdicts.values()]).toEqual(upstream.map(() => 'nginx'))
  }, 60_000)
})
