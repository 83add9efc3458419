import type { IncomingMessage } from 'node:http'
import { GATEWAY_SET_HEADERS as GATEWAY_SET, HOP_BY_HOP_HEADERS as HOP_BY_HOP } from '../src/settings/forward-headers.js'

/**
 * Header policy for the hops to the sidecar. Everything the client sent is forwarded except
 * hop-by-hop headers (RFC 7230 §6.1 plus every name listed in `Connection`), `Expect` (the
 * gateway answers `100-continue` itself), the client's own `X-Forwarded-*`/`Forwarded` and
 * `X-Request-ID`; then the gateway sets Host, X-Forwarded-* from its own view (or the trusted
 * proxy's) and the authoritative X-Request-ID. Without `trust_proxy`, no client-sent forwarding
 * header reaches the sidecar: every `X-Forwarded-*` name (also ones the gateway does not set,
 * like `X-Forwarded-Server`) and `X-Real-IP` are dropped too. With it, those extra names come
 * from the trusted proxy and pass.
 */

/**
 * Additionally not copied on the WebSocket handshake: `ws` sets these itself, and `expect` would
 * make Node write the request head before the WS proxy sets the raw path.
 */
const WS_HANDSHAKE = new Set(['sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'sec-websocket-protocol', 'expect'])

export interface ForwardView {
  /** `trust_proxy`: forwarding headers beyond the ones the gateway sets pass through. */
  trusted: boolean
  host: string
  proto: string
  port: string | undefined
  prefix: string
  forwardedFor: string | undefined
}

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value
  if (v === undefined) return undefined
  const t = v.split(',')[0]!.trim()
  return t === '' ? undefined : t
}

function portOf(host: string): string | undefined {
  const m = /:(\d+)$/.exec(host)
  return m && !host.endsWith(']') ? m[1] : undefined
}

/** The gateway's view of the request; with `trustProxy`, the proxy in front is believed. */
export function forwardView(req: IncomingMessage, rootPath: string, trustProxy: boolean): ForwardView {
  const ownHost = (req.headers.host ?? '').trim()
  const ownProto = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'
  const peer = req.socket.remoteAddress
  if (!trustProxy) {
    return { trusted: false, host: ownHost, proto: ownProto, port: portOf(ownHost), prefix: rootPath, forwardedFor: peer }
  }
  const host = first(req.headers['x-forwarded-host']) ?? ownHost
  const proto = first(req.headers['x-forwarded-proto']) ?? ownProto
  const port = first(req.headers['x-forwarded-port']) ?? portOf(host)
  const prefix = first(req.headers['x-forwarded-prefix']) ?? rootPath
  const chain = req.headers['x-forwarded-for']
  const prior = Array.isArray(chain) ? chain.join(', ') : chain
  const forwardedFor = prior && peer ? `${prior}, ${peer}` : (prior ?? peer)
  return { trusted: true, host, proto, port, prefix, forwardedFor }
}

/** A forwarding header only a trusted proxy may set: any `x-forwarded-…` name, or `x-real-ip`. */
function isClientForwarding(lowerName: string): boolean {
  return lowerName.startsWith('x-forwarded-') || lowerName === 'x-real-ip'
}

/** Request headers for an upstream hop, as a flat object (multi-valued joined per RFC 9110). */
export function upstreamRequestHeaders(
  req: IncomingMessage,
  view: ForwardView,
  requestId: string,
  websocket: boolean,
): Record<string, string> {
  const out: Record<string, string> = {}
  const raw = req.rawHeaders
  let connectionListed: Set<string> | null = null
  const conn = req.headers.connection
  if (conn) {
    connectionListed = new Set(conn.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean))
  }
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase()
    if (HOP_BY_HOP.has(name) || GATEWAY_SET.has(name) || name === 'expect') continue
    if (!view.trusted && isClientForwarding(name)) continue
    if (connectionListed?.has(name)) continue
    if (websocket && WS_HANDSHAKE.has(name)) continue
    const value = raw[i + 1]!
    const prev = out[name]
    out[name] = prev === undefined ? value : name === 'cookie' ? `${prev}; ${value}` : `${prev}, ${value}`
  }
  if (view.host) {
    out.host = view.host
    out['x-forwarded-host'] = view.host
  }
  out['x-forwarded-proto'] = view.proto
  if (view.port) out['x-forwarded-port'] = view.port
  if (view.prefix) out['x-forwarded-prefix'] = view.prefix
  if (view.forwardedFor) out['x-forwarded-for'] = view.forwardedFor
  out['x-request-id'] = requestId
  return out
}

/** `Connection` values that list no header name besides the hop-by-hop `keep-alive`. */
const PLAIN_CONNECTION = new Set(['keep-alive', 'close', 'Keep-Alive', 'Close'])

/**
 * Response headers from the sidecar for `writeHead`, as a flat `[name, value, …]` list: minus
 * hop-by-hop ones and the sidecar's own `X-Request-ID`, plus the gateway's. Multi-valued
 * headers (set-cookie) stay arrays. `headers` comes from undici, names already lower-case.
 */
export function downstreamResponseHeaders(headers: Record<string, string | string[] | undefined>, requestId: string): (string | string[])[] {
  const out: (string | string[])[] = []
  const conn = headers.connection
  const listed =
    conn === undefined || (typeof conn === 'string' && PLAIN_CONNECTION.has(conn))
      ? null
      : new Set(String(conn).split(',').map((s) => s.trim().toLowerCase()))
  for (const name in headers) {
    const value = headers[name]
    if (value === undefined || HOP_BY_HOP.has(name) || name === 'x-request-id' || listed?.has(name)) continue
    out.push(name, value)
  }
  out.push('x-request-id', requestId)
  return out
}
