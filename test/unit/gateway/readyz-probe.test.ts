import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { probeUpstream, READY_PROBE_TIMEOUT_MS } from '../../../src/health.js'

const servers: Server[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections()
    await new Promise((r) => s.close(r))
  }
})

async function upstream(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler)
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('the readyz probe of the sidecar', () => {
  it('is ready on a 2xx at the root, or at {root_path}/ when the root is not', async () => {
    const url = await upstream((req, res) => {
      res.statusCode = req.url === '/tools/' ? 200 : 404
      res.end('x')
    })
    expect(await probeUpstream(url, '')).toEqual({ ok: false, detail: 'upstream_http_failed /:404' })
    expect(await probeUpstream(url, '/tools')).toEqual({ ok: true })
  })

  it('names a refused connection', async () => {
    const url = await upstream((_req, res) => res.end())
    servers[0]!.close()
    const r = await probeUpstream(url, '')
    expect(r).toMatchObject({ ok: false, detail: expect.stringMatching(/^upstream_unreachable ECONNREFUSED: /) })
  })

  it('gives up after the probe timeout, also when the body stalls', async () => {
    for (const handler of [() => {}, (_req: unknown, res: { writeHead(s: number): void; write(b: string): void }) => (res.writeHead(200), res.write('partial'))]) {
      const url = await upstream(handler as Parameters<typeof createServer>[1])
      const r = await probeUpstream(url, '')
      expect(r).toEqual({ ok: false, detail: `upstream_unreachable PROBE_TIMEOUT: no answer within ${READY_PROBE_TIMEOUT_MS} ms` })
    }
  })
})
