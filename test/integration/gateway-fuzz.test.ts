import { connect } from 'node:net'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { afterAll, describe, expect, it } from 'vitest'
import { createClassifier } from '../../gateway/classify.js'
import { readCmdline } from '../../src/process/process-check.js'
import { Rng, describeCase, generateCase, type FuzzCase, type GrammarOptions } from '../helpers/fuzz-http.js'
import { REPO, descendants, isAlive, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'

/**
 * Fuzz of the public port: generated request lines, headers, bodies, pipelines, early closes,
 * stalls and WebSocket handshakes, over raw sockets, against two real trees (root_path '' and
 * '/tools') with a recording sidecar. Invariants: every connection gets a well-formed response
 * or a clean close; no worker exits; fds and connections return to their baseline; the sidecar
 * sees no request the client did not send (same fuzz id, method and path, modulo the gateway's
 * documented rewriting: dot segments resolved, root_path prefixed, WHATWG URL normalisation).
 *
 * SVC_FUZZ_MS: time budget per tree (default 45 s; both trees run at once).
 * SVC_FUZZ_SEED: replay a run (the seed is printed at start and in every failure).
 * SVC_FUZZ_STALL_MS: how long an incomplete request may keep its connection (default 30 s).
 */
const BUDGET_MS = Number(process.env.SVC_FUZZ_MS ?? 45_000)
const SEED = process.env.SVC_FUZZ_SEED ? Number(process.env.SVC_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31)
const STALL_MS = Number(process.env.SVC_FUZZ_STALL_MS ?? 30_000)
const LANES = 12
/** A complete request must be answered and closed within this (the gateway's keep-alive is 5 s). */
const CASE_MS = 12_000
/** Stalls only among the first cases, so they end within the budget. */
const STALL_CASES_BELOW = 60
const FUZZ_SIDECAR = `${REPO}test/fixtures/fuzz-sidecar.mjs`
const HEALTH = '/__fuzz_health'

interface Outcome {
  c: FuzzCase
  data: Buffer
  end: 'fin' | 'reset' | 'timeout' | 'client-abort' | 'ws-head' | `error:${string}`
}

type Violations = Map<string, { count: number; examples: string[] }>

function violate(v: Violations, cls: string, example: string): void {
  const e = v.get(cls) ?? { count: 0, examples: [] }
  e.count++
  if (e.examples.length < 3) e.examples.push(example)
  v.set(cls, e)
}

function runCase(port: number, c: FuzzCase, deadlineMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const data: Buffer[] = []
    let done = false
    const finish = (end: Outcome['end']): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      resolve({ c, data: Buffer.concat(data), end })
    }
    const timer = setTimeout(() => finish('timeout'), deadlineMs)
    socket.on('data', (d: Buffer) => {
      data.push(d)
      if (c.kind === 'ws' && Buffer.concat(data).includes('\r\n\r\n')) finish('ws-head')
    })
    socket.on('end', () => finish('fin'))
    socket.on('close', () => finish('fin'))
    socket.on('error', (e: NodeJS.ErrnoException) => finish(e.code === 'ECONNRESET' || e.code === 'EPIPE' ? 'reset' : `error:${e.code ?? e.name}`))
    // The writes go on while the socket's own events settle the case: nothing awaits them here.
    socket.once('connect', () => void (async () => {
      for (const chunk of c.chunks) {
        if (done) return
        await new Promise<void>((r) => socket.write(chunk, () => r()))
      }
      if (c.abort) finish('client-abort')
    })())
  })
}

const STATUS_LINE = /^HTTP\/1\.[01] [1-5]\d\d [^\r\n]*$/
const HEADER_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[ \t]*[^\r\n\0]*$/

/** Checks one connection's outcome; returns [class, detail] for a broken invariant. */
function judge(o: Outcome): [string, string] | null {
  const { c, data, end } = o
  if (c.kind === 'early-close' && end === 'client-abort') return null
  const text = data.toString('latin1')
  const first = text.slice(0, 200)
  if (end === 'timeout') {
    if (c.kind === 'stall') return ['incomplete request kept open past the stall deadline (no header/request timeout)', `${STALL_MS} ms`]
    if (data.length === 0) return ['no answer and no close', '']
    return ['answered but not closed within the deadline', first]
  }
  if (end.startsWith('error:')) return [`socket ${end}`, first]
  if (data.length === 0) return end === 'reset' ? ['connection reset without an answer', ''] : null
  const headEnd = text.indexOf('\r\n\r\n')
  if (headEnd === -1) return ['answer without a complete response head', first]
  const lines = text.slice(0, headEnd).split('\r\n')
  if (!STATUS_LINE.test(lines[0]!)) return ['malformed status line', first]
  const bad = lines.slice(1).find((l) => !HEADER_LINE.test(l))
  if (bad !== undefined) return ['malformed response header', JSON.stringify(bad.slice(0, 120))]
  const status = Number(lines[0]!.slice(9, 12))
  if (status === 500) return ['500 from the gateway', first]
  // The sidecar is up and answers everything: a 502/504 is the gateway failing to forward.
  if (status === 502 || status === 504) return [`${status} from the gateway while the sidecar is up`, first]
  if (c.expectStatus !== undefined && status !== c.expectStatus) return [`oversized head answered ${status}, not ${c.expectStatus}`, first]
  if (c.wsInvalid && status === 101) return ['101 for a WebSocket handshake RFC 6455 requires refusing (bad key or version)', first]
  return null
}

/** Established (and closing) TCP sockets whose local port is `port`, from /proc/net/tcp{,6}. */
function socketsOn(port: number): number {
  const hex = port.toString(16).toUpperCase().padStart(4, '0')
  let n = 0
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = ''
    try {
      text = readFileSync(f, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/)
      if (cols.length < 4) continue
      // 0A LISTEN, 06 TIME_WAIT, 07 CLOSE: not an open connection.
      if (cols[1]!.endsWith(`:${hex}`) && !['0A', '06', '07'].includes(cols[3]!)) n++
    }
  }
  return n
}

function fdCount(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length
  } catch {
    return -1
  }
}

/** Poll a /proc reading until `ok()` (no event tells when a kernel count drops); false at the deadline. */
async function until(ok: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (!ok()) {
    if (Date.now() > deadline) return false
    await delay(100)
  }
  return true
}

interface Record_ {
  kind: 'http' | 'upgrade' | 'listening'
  method?: string
  url?: string
  rawHeaders?: string[]
  port?: number
}

function normalise(target: string): string {
  const noFragment = target.split('#')[0]!
  try {
    const u = new URL(noFragment, 'http://h')
    return u.pathname + u.search
  } catch {
    return noFragment
  }
}

async function fuzzTree(rootPath: string, seed: number): Promise<{ violations: Violations; cases: number; kinds: Record<string, number> }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-fuzz-'))
  const recordFile = join(dir, 'sidecar.jsonl')
  const violations: Violations = new Map()
  try {
    const tree: SvcTree = await startSvc({
      args: rootPath ? ['--root-path', rootPath] : [],
      env: {
        SVC_UI_COMMAND: JSON.stringify(['node', FUZZ_SIDECAR, '{port}']),
        SVC_FUZZ_RECORD: recordFile,
        SVC_UI_HEALTH_PATH: HEALTH,
        SVC_LOG_LEVEL: 'warn',
        // Well below the stall deadline, so an incomplete request must be closed by the gateway.
        SVC_GATEWAY_CLIENT_HEADER_TIMEOUT_S: '5',
        SVC_GATEWAY_CLIENT_BODY_TIMEOUT_S: '5',
      },
      timeoutMs: 30_000,
    })
    const records = (): Record_[] =>
      readFileSync(recordFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record_)
    const sidecarPort = records().find((r) => r.kind === 'listening')!.port!
    const children = descendants(tree.pid)
    const sidecarPid = children.find((p) => readCmdline(p)?.[1]?.endsWith('fuzz-sidecar.mjs'))!
    const isWorker = (p: number): boolean => readCmdline(p)?.[0]?.startsWith('svc gateway') === true
    const workers = children.filter(isWorker)
    expect(sidecarPid, 'sidecar pid').toBeGreaterThan(0)
    expect(workers.length, `gateway worker pids among ${children.map((p) => readCmdline(p)?.join(' ')).join(' | ')}`).toBeGreaterThan(0)
    const baseline = {
      sidecarFds: fdCount(sidecarPid),
      workerFds: workers.map(fdCount),
      gatewaySockets: socketsOn(tree.port),
      sidecarSockets: socketsOn(sidecarPort),
    }

    const grammar: GrammarOptions = { rootPath, apiMount: '/api', host: `127.0.0.1:${tree.port}` }
    const sent = new Map<string, { method: string; target: string; mustReject?: string; c: FuzzCase }>()
    const kinds: Record<string, number> = {}
    const endAt = Date.now() + BUDGET_MS
    let next = 0
    let down = false
    const lane = async (): Promise<void> => {
      while (Date.now() < endAt && !down) {
        const index = next++
        // Each case has its own stream, so case N of a seed is the same whatever ran before it.
        const c = generateCase(new Rng(seed ^ Math.imul(index + 1, 0x9e3779b1)), grammar, index, index < STALL_CASES_BELOW)
        kinds[c.kind] = (kinds[c.kind] ?? 0) + 1
        for (const s of c.sent) sent.set(s.fuzzId, { ...s, c })
        const o = await runCase(tree.port, c, c.kind === 'stall' ? STALL_MS : CASE_MS)
        if (o.end === 'error:ECONNREFUSED') {
          // The tree no longer listens: every later case would only repeat this.
          down = true
          violate(violations, 'the public port refused connections (the tree went down)', describeCase(c))
          continue
        }
        const bad = judge(o)
        if (bad) violate(violations, bad[0], `${describeCase(c)} → ${bad[1]} (end: ${o.end})`)
      }
    }
    await Promise.all(Array.from({ length: LANES }, lane))

    for (const w of workers) if (!isAlive(w)) violate(violations, 'a gateway worker exited', `worker pid ${w}`)
    const nowWorkers = descendants(tree.pid).filter(isWorker)
    for (const w of nowWorkers) if (!workers.includes(w)) violate(violations, 'a gateway worker was restarted', `new worker pid ${w}`)
    // A dying worker's stack (plain text, not a JSON log line) and the supervisor's restart line.
    const crashLines = tree.stderr.concat(tree.stdout).filter((l) => /^\w*Error\b|^Uncaught|exited unexpectedly|crashed \d+ times/.test(l))
    for (const l of crashLines.slice(0, 3)) violate(violations, 'crash line in the tree output', l.slice(0, 300))

    // The sidecar saw only requests the client sent, once each, with the method and path sent.
    const classify = createClassifier({ apiMountPath: '/api', rootPath })
    const seen = new Map<string, number>()
    for (const r of records()) {
      if (r.kind === 'listening') continue
      const headers = r.rawHeaders ?? []
      const idValues = headers.flatMap((h, i) => (i % 2 === 0 && h.toLowerCase() === 'x-fuzz-id' ? [headers[i + 1]!] : []))
      const where = `${r.kind} ${r.method} ${JSON.stringify(r.url?.slice(0, 200))} x-fuzz-id=${JSON.stringify(idValues)}`
      if (idValues.length === 0) {
        if ((r.url ?? '').split('?')[0]!.endsWith(HEALTH)) continue
        violate(violations, 'sidecar saw a request without the fuzz id', where)
        continue
      }
      if (idValues.length > 1) {
        violate(violations, 'sidecar saw a request with several fuzz ids', where)
        continue
      }
      const id = idValues[0]!
      const s = sent.get(id)
      if (!s) {
        violate(violations, 'sidecar saw a request the client never sent (smuggled)', where)
        continue
      }
      seen.set(id, (seen.get(id) ?? 0) + 1)
      if (s.mustReject) violate(violations, `sidecar saw a request RFC 9112 requires refusing (${s.mustReject})`, `${where} from ${describeCase(s.c)}`)
      if (seen.get(id) === 2) violate(violations, 'sidecar saw one request twice', `${where} from ${describeCase(s.c)}`)
      const routed = classify(s.target)
      if (routed.kind !== 'ui') {
        violate(violations, `sidecar saw a request the gateway should not forward (${routed.kind})`, `${where} from ${describeCase(s.c)}`)
        continue
      }
      const expected = normalise(routed.query === '' ? routed.uiPath : `${routed.uiPath}?${routed.query}`)
      if (r.method !== s.method || normalise(r.url ?? '') !== expected) {
        violate(violations, 'sidecar saw another method or path than sent', `${where}, expected ${s.method} ${JSON.stringify(expected.slice(0, 200))}`)
      }
    }

    // Resources return to baseline: fds of each process, open sockets on both ports.
    const checks: [string, () => number, number][] = [
      ['sidecar fds', () => fdCount(sidecarPid), baseline.sidecarFds],
      ...workers.map((w, i): [string, () => number, number] => [`worker ${w} fds`, () => fdCount(w), baseline.workerFds[i]!]),
      ['connections on the public port', () => socketsOn(tree.port), baseline.gatewaySockets],
      ['connections on the sidecar port', () => socketsOn(sidecarPort), baseline.sidecarSockets],
    ]
    await Promise.all(
      checks.map(async ([what, read, base]) => {
        if (!(await until(() => read() <= base, 20_000))) violate(violations, `${what} did not return to baseline`, `baseline ${base}, now ${read()}`)
      }),
    )
    return { violations, cases: next, kinds }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

afterAll(() => stopAllTrees(), 60_000)

describe('gateway fuzz over raw sockets', () => {
  it(
    'keeps every invariant for generated traffic (root_path "" and "/tools")',
    async () => {
      console.log(`gateway fuzz: SVC_FUZZ_SEED=${SEED} SVC_FUZZ_MS=${BUDGET_MS}`)
      const runs = await Promise.all([fuzzTree('', SEED), fuzzTree('/tools', SEED + 1)])
      const report: string[] = []
      runs.forEach((r, i) => {
        const name = i === 0 ? 'root_path ""' : 'root_path "/tools"'
        console.log(`gateway fuzz ${name}: ${r.cases} cases ${JSON.stringify(r.kinds)}`)
        for (const [cls, v] of r.violations) report.push(`[${name}] ${cls} ×${v.count}\n    ${v.examples.join('\n    ')}`)
      })
      expect(report, `gateway fuzz failed; replay with SVC_FUZZ_SEED=${SEED}\n${report.join('\n')}`).toEqual([])
    },
    BUDGET_MS + STALL_MS + 120_000,
  )
})
