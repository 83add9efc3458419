import { isIP } from 'node:net'
import type { HelloClient } from '../wire/protocol.js'
import type { SocketContext, StContext } from '../st-types.js'

/** `st.context` with every field present. */
export function fullContext(socket: SocketContext): StContext {
  return Object.freeze({
    headers: socket.headers,
    cookies: socket.cookies,
    requestId: socket.requestId,
    ipAddress: socket.ipAddress ?? null,
    locale: socket.locale ?? null,
    timezone: socket.timezone ?? null,
    timezoneOffset: socket.timezoneOffset ?? null,
    url: socket.url ?? null,
    theme: socket.theme ?? null,
    isEmbedded: socket.isEmbedded ?? false,
  })
}

/**
 * The visitor's address from the headers the gateway set: without `trust_proxy` its
 * `X-Forwarded-For` is the peer alone; with it, the chain the proxy in front sent plus that proxy
 * (the gateway's peer), so the visitor is the entry before the last (what the proxy saw), never an
 * entry a client wrote further left. Without the header (a socket straight to the page server),
 * the socket's peer.
 */
export function clientAddress(forwardedFor: string | undefined, peer: string | undefined, trustProxy: boolean): string | null {
  const chain = (forwardedFor ?? '').split(',').map((s) => s.trim()).filter(Boolean)
  const picked = chain.length === 0 ? peer : !trustProxy || chain.length === 1 ? chain[chain.length - 1] : chain[chain.length - 2]
  if (picked === undefined) return null
  const plain = picked.startsWith('::ffff:') && isIP(picked.slice(7)) === 4 ? picked.slice(7) : picked.replace(/^\[(.*)\]$/, '$1')
  return isIP(plain) === 0 ? null : plain
}

/**
 * The hello's browser facts for `st.context`, checked against the socket: a time zone Node does
 * not know reads as null, and so does a URL on another host than the socket's or outside the app.
 */
export function helloContext(client: HelloClient | undefined, headers: Readonly<Record<string, string>>, basePath: string): Partial<StContext> {
  if (!client) return {}
  return {
    locale: client.locale,
    timezone: client.timezone !== null && knownZone(client.timezone) ? client.timezone : null,
    timezoneOffset: client.timezoneOffset,
    url: sameSite(client.url, headers.host, basePath),
    theme: client.theme,
    isEmbedded: client.embedded,
  }
}

function knownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

function sameSite(url: string | null, host: string | undefined, basePath: string): string | null {
  if (url === null || host === undefined) return null
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return null
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null
  if (parsed.host !== host.toLowerCase()) return null
  if (basePath !== '' && parsed.pathname !== basePath && !parsed.pathname.startsWith(`${basePath}/`)) return null
  return parsed.href
}
