/**
 * A seeded generator of raw HTTP/1.x traffic for the gateway fuzz test: request lines, header
 * blocks, bodies, pipelines, early closes, stalls and WebSocket handshakes, drawn from a small
 * grammar of valid, odd and broken forms. Same seed, same cases (mulberry32), so a failing run
 * replays with SVC_FUZZ_SEED.
 */

/** 32-bit seeded PRNG (mulberry32). */
export class Rng {
  #s: number
  constructor(seed: number) {
    this.#s = seed >>> 0
  }
  next(): number {
    let t = (this.#s = (this.#s + 0x6d2b79f5) >>> 0)
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }
  chance(p: number): boolean {
    return this.next() < p
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!
  }
}

/** A request the client sent as a request (not bytes inside a body): it may reach the sidecar. */
export interface SentRequest {
  fuzzId: string
  method: string
  target: string
  /** Why RFC 9112 requires a 400 for it (it must never reach the sidecar), if it does. */
  mustReject?: string
}

export type CaseKind = 'single' | 'pipeline' | 'split' | 'early-close' | 'stall' | 'ws' | 'smuggle'

export interface FuzzCase {
  id: string
  kind: CaseKind
  /** Written in order, each after the previous write completed. */
  chunks: Buffer[]
  /** early-close: the client destroys the socket right after its last chunk. */
  abort: boolean
  sent: SentRequest[]
  /** The status the first answer must have (431 for a well-formed request whose head is too large). */
  expectStatus?: number
  /** A WebSocket handshake RFC 6455 requires refusing (bad key or version): never a 101. */
  wsInvalid?: boolean
}

/** Node's default max header size: a larger head must be refused with 431. */
const MAX_HEAD_BYTES = 16 * 1024

export interface GrammarOptions {
  /** Tree's root_path ('' or '/tools'). */
  rootPath: string
  apiMount: string
  host: string
}

const TOKEN_METHODS = ['GET', 'GET', 'GET', 'POST', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'PROPFIND', 'M-SEARCH']
const ODD_METHODS = ['get', 'G ET', 'CONNECT', 'FOO', '', 'A'.repeat(300), 'GET\0', 'PRI']
const VERSIONS = ['HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0']
const ODD_VERSIONS = ['HTTP/2.0', 'HTTP/1.2', 'HTXP/1.1', 'HTTP/1.1 extra', '', 'http/1.1', 'HTTP/1.1\r']

function uiBases(o: GrammarOptions): string[] {
  const r = o.rootPath
  return [`${r}/`, `${r}/page`, `${r}/static/app.js`, '/page', `${r}/a/b/c`, `${r}/ws`]
}
function apiBases(o: GrammarOptions): string[] {
  const r = o.rootPath
  return [`${r}${o.apiMount}/ping`, `${r}${o.apiMount}/echo`, `${r}${o.apiMount}/files/x/y`, `${o.apiMount}/ping`, `${r}${o.apiMount}`, `${r}${o.apiMount}/nope`]
}

/** Path mutations the gateway must classify without crossing the API mount. */
function mutatePath(rng: Rng, path: string, o: GrammarOptions): string {
  switch (rng.int(0, 17)) {
    case 0:
      return `${path}/%2e%2e${o.apiMount}/ping`
    case 1:
      return `/%2e%2e${path}`
    case 2:
      return `/${path}`
    case 3:
      return path.replace(/\//g, '\\')
    case 4:
      return path.replace(/\//g, '%2f')
    case 5:
      return `${path}#frag`
    case 6:
      return `${path}/ü/日本`
    case 7:
      return `${path}/${'x'.repeat(rng.pick([1000, 9000, 70_000]))}`
    case 8:
      return `http://${o.host}${path}`
    case 9:
      return '*'
    case 10:
      return `${path}/%00`
    case 11:
      return `${path}/../..${o.apiMount}/ping`
    case 12:
      return `${path}/./%zz`
    case 13:
      return `${path}%2F..%2F..${o.apiMount}`
    case 14:
      return `${path}/\u00ff\u0080`
    default:
      return path
  }
}

function query(rng: Rng): string {
  if (rng.chance(0.6)) return ''
  const pairs = Array.from({ length: rng.int(1, 4) }, () => `${rng.pick(['a', 'code', 'q', '%zz', 'x+y', 'k'])}=${rng.pick(['1', 'a b', '%20', '#x', '??', ''])}`)
  return `?${pairs.join('&')}`
}

function header(name: string, value: string): string {
  return `${name}: ${value}\r\n`
}

interface Built {
  head: string
  body: Buffer
  sent: SentRequest | null
  /** Request line and headers are valid except, possibly, for their size. */
  clean: boolean
  wsInvalid?: boolean
}

/** One request: request line, headers, body. `last` adds `Connection: close` unless a mutation chose otherwise. */
function buildRequest(rng: Rng, o: GrammarOptions, fuzzId: string, last: boolean, incompleteBody = false): Built {
  const method = rng.chance(0.9) ? rng.pick(TOKEN_METHODS) : rng.pick(ODD_METHODS)
  const version = rng.chance(0.9) ? rng.pick(VERSIONS) : rng.pick(ODD_VERSIONS)
  const base = rng.chance(0.5) ? rng.pick(uiBases(o)) : rng.pick(apiBases(o))
  const mutated = rng.chance(0.45)
  const path = mutated ? mutatePath(rng, base, o) : base
  const target = path + query(rng)
  let head = version === '' ? `${method} ${target}\r\n` : `${method} ${target} ${version}\r\n`
  const hostMode = rng.int(0, 9)
  // A space in the target (from the query) already makes the request line malformed.
  let clean = TOKEN_METHODS.includes(method) && VERSIONS.includes(version) && !mutated && hostMode <= 6 && !/\s/.test(target)
  let mustReject: string | undefined
  if (hostMode <= 6) head += header('Host', o.host)
  else if (hostMode === 7) {
    head += header('Host', o.host) + header('Host', 'evil.example')
    mustReject = 'duplicate Host'
  } else if (hostMode === 8) {
    const host = rng.pick(['', 'a b', 'x'.repeat(300), 'evil.example:99999'])
    head += header('Host', host)
    if (host === 'a b') mustReject = 'invalid Host'
  }
  head += header('X-Fuzz-Id', fuzzId)
  let connection: string | null = last ? 'close' : 'keep-alive'
  let body: Buffer = Buffer.alloc(0)
  let framing: 'none' | 'cl' | 'chunked' = 'none'
  const extras = rng.int(0, 4)
  // A stall's body must stay incomplete: no framing mutations that would end it.
  const mutations = incompleteBody ? 0 : extras
  for (let i = 0; i < mutations; i++) {
    const extra = rng.int(0, 15)
    // Only these keep a request valid (the huge ones only too large).
    if (![1, 3, 5, 6, 12, 13, 14, 15].includes(extra)) clean = false
    switch (extra) {
      case 0:
        head += header('X-Folded', 'a') + ' continued\r\n'
        break
      case 1:
        head += header('X-Huge', 'h'.repeat(rng.pick([8_000, 20_000, 90_000])))
        break
      case 2:
        head += header('X-Bad', rng.pick(['a\0b', 'a\rb', 'a\nb', 'a\r\n\r\nGET /injected HTTP/1.1', '\x7f']))
        break
      case 3:
        head += header('Expect', rng.pick(['100-continue', '100-continue', '100-Continue']))
        break
      case 4:
        // Mostly lists that still close (a kept-alive connection costs the keep-alive timeout).
        connection = rng.pick(['close, x-other', 'close, te, host', 'close, close', 'Close', 'close, Upgrade', 'keep-alive, Upgrade', ''])
        break
      case 5:
        head += header(rng.pick(['X-Forwarded-For', 'X-Forwarded-Host', 'X-Forwarded-Proto', 'X-Forwarded-Prefix', 'Forwarded']), rng.pick(['1.2.3.4', 'evil.example', 'javascript', '/evil', 'for=1.1.1.1;host=x', '']))
        break
      case 6:
        for (let k = 0; k < rng.pick([50, 150]); k++) head += header(`X-Many-${k}`, 'v')
        break
      case 7:
        head += rng.pick(['Bad Name: x\r\n', ': empty-name\r\n', 'NoColon\r\n', 'X-Tab:\tv\r\n', ' Leading: space\r\n'])
        break
      case 8:
        head += header('Transfer-Encoding', rng.pick(['chunked', 'chunked, gzip', 'xchunked', ' chunked', 'gzip, chunked', 'identity']))
        framing = 'chunked'
        break
      case 9:
        head += header('Content-Length', rng.pick(['-1', '1,1', '99999999999999999999', 'abc', '0', '+0']))
        framing = framing === 'none' ? 'cl' : framing
        break
      case 10:
        head += header('Content-Length', '3') + header('Content-Length', '4')
        break
      case 11:
        head += header('Upgrade', rng.pick(['h2c', 'websocket', 'foo']))
        break
      case 12:
        head += header('X-Request-ID', rng.pick(['ok-id', 'bad id', 'x'.repeat(300), '../x']))
        break
      case 13:
        head += header('Traceparent', rng.pick(['00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'garbage']))
        break
      default:
        break
    }
  }
  // A body with coherent framing most of the time; bad chunk sizes and short or long bodies otherwise.
  // Bodies are complete or over-long (the rest is garbage for the next request); a body shorter
  // than its framing is a stall, and only stall cases send one.
  const bodyMode = rng.int(0, 9)
  if (bodyMode >= 5 && framing === 'none') {
    const len = rng.pick([3, 100, 70_000])
    body = Buffer.alloc(len, 0x61)
    const declared = incompleteBody ? len + 5 : rng.chance(0.8) ? len : len - 2
    head += header('Content-Length', String(declared))
  } else if (framing === 'chunked' || (bodyMode === 4 && framing === 'none') || incompleteBody) {
    if (framing === 'none') head += header('Transfer-Encoding', 'chunked')
    body = Buffer.from(
      incompleteBody
        ? rng.pick(['5\r\nhello', 'ffffffffffffffffff\r\nx\r\n', '5\r\nhello\r\n'])
        : rng.pick(['5\r\nhello\r\n0\r\n\r\n', 'zz\r\nhello\r\n0\r\n\r\n', '-1\r\n\r\n', '3;ext=1\r\nabc\r\n0\r\nTrailer: x\r\n\r\n', '0\r\n\r\n']),
    )
  }
  if (connection !== null) head += header('Connection', connection)
  head += '\r\n'
  return { head, body, clean, sent: { fuzzId, method, target, ...(mustReject ? { mustReject } : {}) } }
}

function wsHandshake(rng: Rng, o: GrammarOptions, fuzzId: string): Built {
  const base = rng.chance(0.85) ? rng.pick(uiBases(o)) : rng.pick(apiBases(o))
  const target = rng.pick([base, `${base}#x`, `${base}?a=1#x`, `${base}?x=%zz`, mutatePath(rng, base, o)])
  let head = `GET ${target} HTTP/1.1\r\n` + header('Host', o.host) + header('X-Fuzz-Id', fuzzId)
  head += header('Upgrade', rng.pick(['websocket', 'websocket', 'websocket', 'WebSocket', 'h2c', 'websocket, h2c', '']))
  head += header('Connection', rng.pick(['Upgrade', 'Upgrade', 'keep-alive, Upgrade', 'Upgrade, HTTP2-Settings', 'close']))
  const GOOD_KEY = 'dGhlIHNhbXBsZSBub25jZQ=='
  const key = rng.pick([GOOD_KEY, GOOD_KEY, 'bad', '', null, `${GOOD_KEY}\r\nSec-WebSocket-Key: eHh4eHh4eHh4eHh4eHh4eA==`])
  if (key !== null) head += header('Sec-WebSocket-Key', key)
  const version = rng.pick(['13', '13', '13', '8', 'x', null])
  if (version !== null) head += header('Sec-WebSocket-Version', version)
  const protocol = rng.pick([null, null, 'chat', 'a b', 'a, a', ',,', 'a,b c', 'chat, chat.v2'])
  if (protocol !== null) head += header('Sec-WebSocket-Protocol', protocol)
  if (rng.chance(0.2)) head += header('HTTP2-Settings', 'AAMAAABkAARAAAAAAAIAAAAA')
  head += '\r\n'
  const wsInvalid = key !== GOOD_KEY || (version !== '13' && version !== '8')
  return { head, body: Buffer.alloc(0), clean: false, wsInvalid, sent: { fuzzId, method: 'GET', target } }
}

/** One fuzz case; `stallAllowed` gates the slow "incomplete request, then silence" cases. */
export function generateCase(rng: Rng, o: GrammarOptions, index: number, stallAllowed: boolean): FuzzCase {
  const id = `c${index}`
  const roll = rng.int(0, 99)
  const kind: CaseKind =
    stallAllowed && roll < 3 ? 'stall' : roll < 40 ? 'single' : roll < 55 ? 'pipeline' : roll < 65 ? 'split' : roll < 75 ? 'early-close' : roll < 90 ? 'ws' : 'smuggle'
  const bytes = (b: Built): Buffer => Buffer.concat([Buffer.from(b.head, 'latin1'), b.body])
  const sent: SentRequest[] = []
  const keep = (b: Built): Built => {
    if (b.sent) sent.push(b.sent)
    return b
  }
  switch (kind) {
    case 'ws': {
      const b = keep(wsHandshake(rng, o, `${id}-0`))
      return { id, kind, chunks: [bytes(b)], abort: false, sent, ...(b.wsInvalid ? { wsInvalid: true } : {}) }
    }
    case 'pipeline': {
      const n = rng.int(2, 4)
      const built = Array.from({ length: n }, (_, i) => keep(buildRequest(rng, o, `${id}-${i}`, i === n - 1)))
      return { id, kind, chunks: [Buffer.concat(built.map(bytes))], abort: false, sent, ...expect431(built[0]!) }
    }
    case 'split': {
      const first = keep(buildRequest(rng, o, `${id}-0`, true))
      const whole = bytes(first)
      const cuts = [...new Set(Array.from({ length: rng.int(1, 4) }, () => rng.int(1, Math.max(1, whole.length - 1))))].sort((a, b) => a - b)
      const chunks: Buffer[] = []
      let from = 0
      for (const c of cuts) {
        chunks.push(whole.subarray(from, c))
        from = c
      }
      chunks.push(whole.subarray(from))
      return { id, kind, chunks: chunks.filter((c) => c.length > 0), abort: false, sent, ...expect431(first) }
    }
    case 'early-close': {
      const whole = bytes(keep(buildRequest(rng, o, `${id}-0`, true)))
      return { id, kind, chunks: [whole.subarray(0, rng.int(1, Math.max(1, whole.length - 1)))], abort: true, sent }
    }
    case 'stall': {
      // Half a head, or a whole head with a body shorter than it announced; then silence.
      if (rng.chance(0.5)) {
        const b = keep(buildRequest(rng, o, `${id}-0`, true, true))
        return { id, kind, chunks: [bytes(b)], abort: false, sent }
      }
      const b = keep(buildRequest(rng, o, `${id}-0`, true))
      return { id, kind, chunks: [Buffer.from(b.head.slice(0, rng.int(1, b.head.length - 4)), 'latin1')], abort: false, sent }
    }
    case 'smuggle': {
      // A Content-Length / Transfer-Encoding conflict whose body holds a second request; that one
      // is not a request the client sent, so the sidecar must never see its id.
      const inner = `GET ${o.rootPath}/smuggled HTTP/1.1\r\nHost: ${o.host}\r\nX-Fuzz-Id: body-${id}\r\n\r\n`
      const chunked = `0\r\n\r\n${inner}`
      const base = rng.pick(uiBases(o))
      // [framing headers, whether the bytes after `0\r\n\r\n` are a second request the client sent]
      const [framing, innerIsRequest] = rng.pick<[string, boolean]>([
        [`Content-Length: 4\r\nTransfer-Encoding: chunked\r\n`, false],
        [`Transfer-Encoding: chunked\r\nContent-Length: 4\r\n`, false],
        [`Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n`, false],
        [`Transfer-Encoding: xchunked\r\nContent-Length: ${Buffer.byteLength(chunked)}\r\n`, false],
        [`Content-Length: ${Buffer.byteLength(chunked)}\r\nContent-Length: 0\r\n`, false],
        [`Content-Length: ${Buffer.byteLength(chunked)}\r\n`, false],
        [`Transfer-Encoding:\tchunked\r\n`, true],
        [`Transfer-Encoding: chunked\r\n`, true],
      ])
      const head = `POST ${base} HTTP/1.1\r\nHost: ${o.host}\r\nX-Fuzz-Id: ${id}-0\r\n${framing}\r\n`
      sent.push({ fuzzId: `${id}-0`, method: 'POST', target: base })
      if (innerIsRequest) sent.push({ fuzzId: `body-${id}`, method: 'GET', target: `${o.rootPath}/smuggled` })
      return { id, kind, chunks: [Buffer.from(head + chunked, 'latin1')], abort: false, sent }
    }
    default: {
      const b = keep(buildRequest(rng, o, `${id}-0`, true))
      return { id, kind, chunks: [bytes(b)], abort: false, sent, ...expect431(b) }
    }
  }
}

function expect431(b: Built): { expectStatus?: number } {
  return b.clean && Buffer.byteLength(b.head, 'latin1') > MAX_HEAD_BYTES + 1024 ? { expectStatus: 431 } : {}
}

/** The first 400 bytes of a case, escaped, for a failure report. */
export function describeCase(c: FuzzCase): string {
  const text = Buffer.concat(c.chunks).toString('latin1')
  const shown = text.length > 400 ? `${text.slice(0, 400)}… (${text.length} bytes)` : text
  return `${c.id} [${c.kind}${c.abort ? ', client aborts' : ''}] ${JSON.stringify(shown)}`
}
