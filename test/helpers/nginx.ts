import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { request } from 'undici'
import { nginxMainConfig } from './nginx-config.js'
import { REPO } from './svc-process.js'
import { freePort } from './ui-sidecar.js'

export const NGINX = '/usr/sbin/nginx'

/** Start nginx with `deploy/nginx/<file>` included in a minimal main config; upstream servers and listen rewritten. */
export async function startNginx(dir: string, file: string, upstreams: [number, number], listenPort?: number): Promise<{ proc: ChildProcess; base: string }> {
  const port = listenPort ?? (await freePort())
  const site = readFileSync(`${REPO}deploy/nginx/${file}`, 'utf8')
  const templated = site
    .replace(/^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${port};`)
    .replace('server svc-replica-1:8000', `server 127.0.0.1:${upstreams[0]}`)
    .replace('server svc-replica-2:8000', `server 127.0.0.1:${upstreams[1]}`)
  if (/svc-replica-|listen 80;/.test(templated)) throw new Error(`deploy/nginx/${file} changed: the test cannot template its listen or upstream lines`)
  mkdirSync(dir, { recursive: true })
  writeFileSync(`${dir}/svc.conf`, templated)
  const base = `http://127.0.0.1:${port}`
  const proc = await runNginx(dir, `include ${dir}/svc.conf;`, `${base}/`)
  return { proc, base }
}

export async function stopNginx(proc: ChildProcess | undefined): Promise<void> {
  if (proc && proc.exitCode === null) {
    proc.kill('SIGQUIT')
    await once(proc, 'exit')
  }
}


/**
 * Start nginx (Debian) with a minimal main config around `http` (server blocks, maps, includes),
 * all its files under `dir`; resolves once nginx answers `probeUrl` (any status: it is listening).
 */
export async function runNginx(dir: string, http: string, probeUrl: string): Promise<ChildProcess> {
  mkdirSync(dir, { recursive: true })
  writeFileSync(`${dir}/nginx.conf`, nginxMainConfig(dir, http))
  const proc = spawn(NGINX, ['-c', `${dir}/nginx.conf`, '-p', dir], { stdio: ['ignore', 'inherit', 'inherit'] })
  const deadline = Date.now() + 10_000
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`nginx exited ${proc.exitCode}: ${readFileSync(`${dir}/error.log`, 'utf8')}`)
    try {
      const res = await request(probeUrl)
      await res.body.dump()
      return proc
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`nginx did not come up (${probeUrl})`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
