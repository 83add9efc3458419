import { describe, expect, it } from 'vitest'
import { downstreamResponseHeaders } from '../../../gateway/forward-headers.js'

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
