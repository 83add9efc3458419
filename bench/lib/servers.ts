import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as delay } from 'node:timers/promises'
import { nginxMainConfig } from '../../test/helpers/nginx-config.js'
import { spawnTracked, type Tracked } from './processes.js'

/** The processes a bench measures: svc trees, nginx, the Fastify proxy, the upstream. */
export const REPO = fileURLToPath(new URL('../..', import.meta.url))
export const SVC_BIN = join(REPO, 'bin/svc.js')
export const FIXTURES = join(REPO, 'bench/fixtures')
export const NGINX = '/usr/sbin/nginx'

export interface Running {
  tracked: Tracked
  /** Base URL of the server, no trailing slash. */
  url: string
}

export interface SvcRunning extends Running {
  /** The ui sidecar's URL, from the listening line. */
  sidecarUrl: string
  /** The supervisor and its gateway workers: the tree minus the sidecar (the upstream). */
  proxyPids: () => number[]
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
  } catch {
    return ''
  }
}

export interface SvcOptions {
  target: string
  args?: string[]
  env?: Record<string, string>
  /** Where the tree's stdout (JSON logs) goes; default discarded. */
  stdout?: 'ignore' | 'pipe'
  timeoutMs?: number
  /** Another build's `bin/svc.js` (bench/lib/baseline.ts), run from its own folder; default this checkout's. */
  bin?: string
}

/** `svc run <target> --port 0 --no-pidfile …`, resolved once it prints its listening line. */
export async function startSvc(opts: SvcOptions): Promise<SvcRunning> {
  const bin = opts.bin ?? SVC_BIN
  const tracked = spawnTracked(process.execPath, [bin, 'run', opts.target, '--port', '0', '--no-pidfile', ...(opts.args ?? [])], {
    cwd: join(bin, '..', '..'),
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', opts.stdout ?? 'ignore', 'pipe'],
  })
  const line = await tracked.waitForLine('stderr', /svc: listening on http:\/\//, opts.timeoutMs ?? 30_000)
  const url = /listening on (http:\/\/[^/ ]+)/.exec(line)![1]!
  const sidecarUrl = /ui sidecar (http:\/\/[^, ]+)/.exec(line)?.[1] ?? ''
  const proxyPids = (): number[] => tracked.treePids().filter((p) => p === tracked.pid || cmdline(p).startsWith('svc gateway'))
  return { tracked, url, sidecarUrl, proxyPids }
}

/** A node script from bench/fixtures that prints "<name>: listening on <port>" on stdout. */
export async function startFixture(script: string, args: string[]): Promise<Running> {
  const tracked = spawnTracked(process.execPath, [join(FIXTURES, script), ...args], { cwd: REPO })
  const line = await tracked.waitForLine('stdout', /listening on \d+/, 15_000)
  return { tracked, url: `http://127.0.0.1:${/listening on (\d+)/.exec(line)![1]}` }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

export async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = connect(port, '127.0.0.1', () => {
        sock.destroy()
        resolve(true)
      })
      sock.once('error', () => resolve(false))
    })
    if (ok) return
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`)
    await delay(20)
  }
}

/** nginx's worker_connections in the benches (more than the tests' nginx needs). */
export const BENCH_NGINX_CONNECTIONS = 1024

/**
 * nginx as a reverse proxy the way one would deploy it in front of a keep-alive upstream: one
 * worker, HTTP/1.1 to the upstream with a keep-alive pool of 64, no access log (svc's is off by
 * default too). Config and temp files live in a fresh temp dir, removed on stop.
 */
export function nginxConfig(dir: string, port: number, upstream: string): string {
  const up = new URL(upstream)
  return nginxMainConfig(
    dir,
    `# svc's default body limit (gateway_max_proxy_request_body_bytes); nginx's own is 1m. bench:uploads.
  client_max_body_size 32m;
  keepalive_requests 1000000;
  upstream bench_upstream {
    server ${up.host};
    keepalive 64;
    keepalive_requests 1000000;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://bench_upstream;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
    # bench:ws: nginx's WebSocket tunnel, the reference for the gateway's relay.
    location /bench/ws {
      proxy_pass http://bench_upstream;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection "upgrade";
      proxy_read_timeout 1h;
    }
  }`,
    BENCH_NGINX_CONNECTIONS,
  )
}

/** A fresh temp dir for an nginx config and its files; `runNginx` removes it when nginx exits. */
export function nginxDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-nginx-'))
  // Run as root, nginx's workers are `nobody`: they must reach the temp dirs (request bodies, served files).
  chmodSync(dir, 0o755)
  return dir
}

/** nginx run from `dir` (see `nginxDir`) with `config` as its nginx.conf, once it listens on `port`. */
export async function runNginx(dir: string, port: number, config: string): Promise<Running> {
  writeFileSync(join(dir, 'nginx.conf'), config)
  const tracked = spawnTracked(NGINX, ['-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')])
  const cleanup = (): void => rmSync(dir, { recursive: true, force: true })
  void tracked.exited.then(cleanup)
  try {
    await Promise.race([
      waitForPort(port, 10_000),
      tracked.exited.then((code) => {
        throw new Error(`nginx exited (${code}): ${tracked.stderr.join('\n')}`)
      }),
    ])
  } catch (err) {
    await tracked.stop()
    throw err
  }
  return { tracked, url: `http://127.0.0.1:${port}` }
}

export async function startNginx(upstream: string): Promise<Running | null> {
  if (!existsSync(NGINX)) return null
  const dir = nginxDir()
  const port = await freePort()
  return runNginx(dir, port, nginxConfig(dir, port, upstream))
}
