/**
 * What secret scrubbing costs per log line (issue #34.1): svc's JSON logger writing to a sink that
 * drops the bytes, with no secrets registered (the baseline: the scrub returns at once), then with
 * ten registered, for lines that hold none (nearly every line) and lines that hold one
 * JSON-escaped twice or URL-encoded (found and replaced). The scrub alone is timed too, beside the
 * earlier scrubber (every value and its one-level JSON escape searched as written), which missed
 * those spellings.
 * Run: npm run bench:secret-scrub
 */
import { Writable } from 'node:stream'
import pino from 'pino'
import { jsonLogOptions } from '../src/logging/logger.js'
import { registerSecretValues, scrubSecrets } from '../src/logging/secret-scrub.js'
import { machineLine, printTable, ratio } from './pages-lib/report.js'

const LINES = 200_000
const ROUNDS = 5
const SECRETS = Array.from({ length: 10 }, (_v, i) => `sk_live_${i}_SuperSecret"Value\\42xyz-${'k'.repeat(i * 3)}`)

const sink = new Writable({ write: (_chunk, _enc, done) => done() })
const logger = pino(jsonLogOptions('info'), sink)

const plain = (i: number) => logger.info({ request_id: `req-${i}`, svc_dispatch: 'api', path: '/api/orders/42', query: 'region=North&limit=10', status: 200, duration_ms: 1.25 }, 'gateway GET /api/orders/42')
const escaped = (i: number) => logger.error({ request_id: `req-${i}` }, 'cfg ' + JSON.stringify(JSON.stringify({ k: SECRETS[i % 10] })))
const encoded = (i: number) => logger.warn({ request_id: `req-${i}`, url: `https://up.example/x?key=${encodeURIComponent(SECRETS[i % 10]!)}` }, 'upstream refused')

/** Best of `ROUNDS` runs of `LINES` calls, in ns per call. */
function nsPerCall(fn: (i: number) => unknown): number {
  let best = Infinity
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < LINES; i++) fn(i)
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / LINES)
  }
  return best
}

/** The scrubber before issue #34: each value, and its JSON escape, searched as written. */
function earlierScrub(values: readonly string[]): (line: string) => string {
  const ordered = [...new Set(values.flatMap((v) => [v, JSON.stringify(v).slice(1, -1)]))].sort((a, b) => b.length - a.length)
  return (line) => {
    let out = line
    for (const v of ordered) if (out.includes(v)) out = out.replaceAll(v, '<redacted>')
    return out
  }
}

const sampleLines: string[] = []
const capture = pino(jsonLogOptions('info'), new Writable({ write: (chunk: Buffer, _enc, done) => done(void sampleLines.push(chunk.toString())) }))
capture.info({ request_id: 'req-1', svc_dispatch: 'api', path: '/api/orders/42', query: 'region=North&limit=10', status: 200, duration_ms: 1.25 }, 'gateway GET /api/orders/42')
const plainLine = sampleLines[0]!
const hitLine = JSON.stringify({ level: 'error', message: 'cfg ' + JSON.stringify(JSON.stringify({ k: SECRETS[3] })) })

console.log(machineLine())
console.log(`svc's JSON logger to a sink that drops the bytes; best of ${ROUNDS} rounds of ${LINES.toLocaleString('en-US')} lines`)
const none = nsPerCall(plain)
registerSecretValues(SECRETS)
const rows: [string, number][] = [
  ['no secrets registered (baseline)', none],
  ['10 secrets, line without one', nsPerCall(plain)],
  ['10 secrets, line with one JSON-escaped twice', nsPerCall(escaped)],
  ['10 secrets, line with one URL-encoded', nsPerCall(encoded)],
]
printTable(['log call', 'ns/line', 'vs baseline'], rows.map(([label, ns]) => [label, ns.toFixed(0), ratio(ns, none)]))

const earlier = earlierScrub(SECRETS)
console.log('\nThe scrub alone, on one finished line (10 secrets)')
const scrubRows: [string, number][] = [
  ['earlier scrubber, line without one', nsPerCall(() => earlier(plainLine))],
  ['this scrubber, line without one', nsPerCall(() => scrubSecrets(plainLine))],
  ['this scrubber, line with one JSON-escaped twice', nsPerCall(() => scrubSecrets(hitLine))],
]
printTable(['', 'ns/line', 'vs earlier'], scrubRows.map(([label, ns]) => [label, ns.toFixed(0), ratio(ns, scrubRows[0]![1])]))
if (scrubSecrets(hitLine).includes('SuperSecret') || !earlier(hitLine).includes('SuperSecret')) throw new Error('bench: the lines do not show what they should')
