/**
 * Static files (issue #23): the page client's built files served by a gateway worker of a real
 * `svc run` tree (1 worker, the bundled page server; the worker answers them itself, no proxy hop)
 * against nginx serving the same files from the same folder (1 worker, `sendfile on`,
 * `gzip_static on`: the precompressed .gz beside each file). Both are asked for the gzip encoding
 * (what nginx can send precompressed without extra modules) and for the plain file, for a small
 * file (theme.js), the app entry (app.js) and the chart chunk. Interleaved rounds with fresh
 * processes; medians with their spread; throughput and the server's CPU time per request.
 * Run: npm run bench:static [-- --rounds 3 --duration 5 --warmup 1 --tool wrk|autocannon]
 * Docs: docs/performance.md#static-files-worker-against-nginx
 */
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { busyWarning, machineLine } from './lib/machine.js'
import { LOAD_BENCH_OPTIONS, parseLoadBenchArgs, runLoad, type LoadResult } from './lib/load.js'
import { installCleanup, stopAll } from './lib/processes.js'
import { BENCH_NGINX_CONNECTIONS, REPO, freePort, nginxDir, runNginx, startSvc, type Running } from './lib/servers.js'
import { nginxMainConfig } from '../test/helpers/nginx-config.js'
import { fmtInt, fmtRatio, median, table } from './lib/table.js'

const CONNECTIONS = 50
const CLIENT = join(REPO, 'dist/client')

const { values } = parseArgs({ options: LOAD_BENCH_OPTIONS })
const { tool, durationS, warmupS, rounds } = parseLoadBenchArgs(values)

const manifest = JSON.parse(readFileSync(join(CLIENT, 'manifest.json'), 'utf8')) as { entries: Record<string, string>; files: Record<string, { bytes: number; gzip: number | null }> }
const chartChunk = Object.keys(manifest.files).find((f) => /^chunks\/render-/.test(f))
const FILES = [
  ['theme.js', manifest.entries['theme.js']!],
  ['app.js', manifest.entries['app.js']!],
  ...(chartChunk ? [['chart chunk', chartChunk]] : []),
] as const
const ENCODINGS = [
  ['gzip', { 'accept-encoding': 'gzip' }],
  ['plain', { 'accept-encoding': 'identity' }],
] as const

/** nginx serving dist/client at /_stcore/static/ as a deploy would: sendfile, the .gz files, the same cache header. */
async function startNginxStatic(): Promise<Running & { pids: () => number[] }> {
  const dir = nginxDir()
  mkdirSync(join(dir, 'www', '_stcore'), { recursive: true })
  symlinkSync(CLIENT, join(dir, 'www', '_stcore', 'static'), 'dir')
  const port = await freePort()
  const config = nginxMainConfig(
    dir,
    `types { text/javascript js; text/css css; }
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:${port};
    root ${dir}/www;
    location /_stcore/static/ {
      gzip_static on;
      gzip_vary on;
      add_header Cache-Control "public, max-age=31536000, immutable";
      add_header X-Content-Type-Options nosniff;
    }
  }`,
    BENCH_NGINX_CONNECTIONS,
  )
  const nginx = await runNginx(dir, port, config)
  return { ...nginx, pids: nginx.tracked.treePids }
}

installCleanup()
console.log(machineLine())
console.log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)
const warning = await busyWarning()
if (warning) console.log(warning)
console.log(
  `load: ${tool}, keep-alive, ${CONNECTIONS} connections, GET /_stcore/static/<file>; ${warmupS} s warm-up + ${durationS} s per measurement; ${rounds} interleaved rounds\n` +
    `files: ${FILES.map(([label, f]) => `${label} ${f} (${fmtInt(manifest.files[f]!.bytes)} B, gzip ${fmtInt(manifest.files[f]!.gzip ?? 0)} B)`).join(', ')}\n`,
)

const servers = [
  { name: 'svc worker', start: async () => { const s = await startSvc({ target: 'bench/fixtures/wire-app.ts:app', timeoutMs: 60_000 }); return { ...s, pids: s.proxyPids } } },
  { name: 'nginx', start: startNginxStatic },
] as const
const runs = new Map<string, LoadResult[]>()
const key = (server: string, file: string, encoding: string): string => `${server}|${file}|${encoding}`
try {
  for (let round = 0; round < rounds; round++) {
    for (const server of servers) {
      const s = await server.start()
      try {
        for (const [label, file] of FILES) {
          for (const [encoding, headers] of ENCODINGS) {
            const url = `${s.url}/_stcore/static/${file}`
            const probe = await fetch(url, { headers })
            await probe.arrayBuffer()
            const sent = probe.headers.get('content-encoding')
            if (probe.status !== 200 || (encoding === 'gzip') !== (sent === 'gzip')) throw new Error(`${server.name}: ${url} answered ${probe.status}, content-encoding ${sent}`)
            const r = await runLoad(tool, { url, connections: CONNECTIONS, durationS, warmupS, cpuPids: s.pids, headers })
            if (r.failures > 0) throw new Error(`${server.name} ${label} ${encoding}: ${r.failures} failed requests`)
            const list = runs.get(key(server.name, label, encoding)) ?? []
            list.push(r)
            runs.set(key(server.name, label, encoding), list)
            console.log(`round ${round + 1} ${server.name} ${label} ${encoding}: ${fmtInt(r.rps)} req/s, ${r.cpuUsPerRequest?.toFixed(1) ?? '-'} µs CPU/req`)
          }
        }
      } finally {
        await s.tracked.stop()
      }
    }
  }
} finally {
  await stopAll()
}

const spread = (xs: number[], f: (n: number) => string): string => (xs.length === 1 ? '' : `${f(Math.min(...xs))}–${f(Math.max(...xs))}`)
const rows: string[][] = []
for (const [label] of FILES) {
  for (const [encoding] of ENCODINGS) {
    const svc = runs.get(key('svc worker', label, encoding))!
    const nginx = runs.get(key('nginx', label, encoding))!
    // Per round, against nginx of the same round: the ratio background load moves least.
    const ratios = svc.map((r, i) => r.rps / nginx[i]!.rps)
    const cpu = (rs: LoadResult[]): string => (rs[0]!.cpuUsPerRequest === null ? '-' : median(rs.map((r) => r.cpuUsPerRequest!)).toFixed(1))
    const r = median(ratios)
    rows.push([
      `${label}, ${encoding}`,
      fmtInt(median(svc.map((x) => x.rps))),
      fmtInt(median(nginx.map((x) => x.rps))),
      fmtRatio(r),
      spread(ratios, fmtRatio),
      cpu(svc),
      cpu(nginx),
      `≥ 0.50× ${r >= 0.5 ? 'met' : 'MISSED'}`,
    ])
  }
}
console.log()
console.log(table(['file, encoding', 'svc worker req/s', 'nginx req/s', 'svc / nginx', 'rounds', 'svc CPU µs/req', 'nginx CPU µs/req', 'target'], rows))
console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)
if (warning) console.log('the machine was busy: read the ratios (same round), not the absolute figures')
