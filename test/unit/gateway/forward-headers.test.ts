import { describe, expect, it } from 'vitest'
import type { IncomingMessage } from 'node:http'
import { downstreamResponseHeaders, forwardView, upstreamRequestHeaders } from '../../../gateway/forward-headers.js'

/** The parts of a request the header policy reads, from raw name/value pairs as a client sent them. */
function fakeRequest(raw: string[]): IncomingMessage {
  const headers: Record<string, string> = {}
  for (let i = 0; i < raw.length; i += 2) headers[raw[i]!.toLowerCase()] ??= raw[i + 1]!
  return { rawHeaders: raw, headers, socket: { remoteAddress: '10.0.0.7' } } as unknown as IncomingMessage
}

describe('upstreamRequestHeaders: client forwarding headers', () => {
  const raw = [
    'Host', 'app.example',
    'X-Forwarded-Server', 'proxy-1',
    'X-Forwarded-For', '203.0.113.9',
    'X-Real-IP', '203.0.113.9',
    'Forwarded', 'for=203.0.113.9',
    'Expect', '100-continue',
    'X-Kept', 'yes',
  ]

  it('drops every client X-Forwarded-*, Forwarded, X-Real-IP and Expect without trust_proxy', () => {
    const req = fakeRequest(raw)
    const out = upstreamRequestHeaders(req, forwardView(req, '', false), 'rid', false)
    expect(out).toEqual({
      host: 'app.example',
      'x-kept': 'yes',
      'x-forwarded-host': 'app.example',
      'x-forwarded-proto': 'http',
      'x-forwarded-for': '10.0.0.7',
      'x-request-id': 'rid',
    })
  })

  it("lets the trusted proxy's extra forwarding headers through, but never Forwarded or Expect", () => {
    const req = fakeRequest(raw)
    const out = upstreamRequestHeaders(req, forwardView(req, '', true), 'rid', false)
    expect(out['x-forwarded-server']).toBe('proxy-1')
    expect(out['x-real-ip']).toBe('203.0.113.9')
    expect(out['x-forwarded-for']).toBe('203.0.113.9, 10.0.0.7')
    expect(out.forwarded).toBeUndefined()
    expect(out.expect).toBeUndefined()
  })
})

describe('downstreamResponseHeaders', () => {
  it('drops hop-by-hop headers and the sidecar X-Request-ID, keeps the rest in order and adds the gateway id', () => {
    const out = downstreamResponseHeaders(
      {
        'content-type': 'application/json',
        connection: 'keep-alive',
        'keep-alive': 'timeout=5',
        'transfer-encoding': 'chunked',
        'x-request-id': 'from-sidecar',
        'set-cookie': ['a=1', 'b=2'],
        vary: undefined,
      },
      'rid-1',
    )
    expect(out).toEqual(['content-type', 'application/json', 'set-cookie', ['a=1', 'b=2'], 'x-request-id', 'rid-1'])
  })

  it('drops every header the Connection header lists, whatever its case', () => {
    const out = downstreamResponseHeaders({ connection: 'Keep-Alive, X-Secret-Hop', 'x-secret-hop': '1', 'x-kept': '2' }, 'rid-2')
    expect(out).toEqual(['x-kept', '2', 'x-request-id', 'rid-2'])
  })
})
