import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startSvc, type SvcTree } from '../helpers/svc-process.js'

/**
 * The gateway's tracing channels seen from inside a real gateway worker of `svc run`: a preload
 * (test/fixtures/diagnostics-preload.mjs) subscribes as an APM agent would and writes every event
 * to a file.
 */
const PRELOAD = join(import.meta.dirname, '..', 'fixtures', 'diagnostics-preload.mjs')
const DEADLINE_MS = 15_000

interface Event {
  channel: string
  event: string
  requestId: string
  dispatch?: string
  method?: string
  path?: string
  url?: string
  statusCode?: number
  error?: string
}

let dir: string
let file: string
let tree: SvcTree

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-diagnostics-'))
  file = join(dir, 'events.jsonl')
  tree = await startSvc({ env: { NODE_OPTIONS: `--import ${PRELOAD}`, SVC_TEST_DIAGNOSTICS_FILE: file } })
}, 60_000)

afterAll(async () => {
  await tree?.stop()
  rmSync(dir, { recursive: true, force: true })
})

function events(requestId: string): Event[] {
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Event)
    .filter((e) => e.requestId === requestId)
}

/** The events of `requestId` once `channel` has published its asyncEnd (the hop is done). */
async function settled(requestId: string, channels: string[]): Promise<Event[]> {
  const deadline = Date.now() + DEADLINE_MS
  for (;;) {
    const seen = events(requestId)
    if (channels.every((c) => seen.some((e) => e.channel === c && e.event === 'asyncEnd'))) return seen
    if (Date.now() > deadline) throw new Error(`no asyncEnd on ${channels.join(', ')} for ${requestId}; saw ${JSON.stringify(seen)}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

const order = (seen: Event[], channel: string): string[] => seen.filter((e) => e.channel === channel).map((e) => e.event)

describe('diagnostics_channel tracing channels of the gateway', () => {
  it('an API request: svc:gateway:request start, end, asyncStart, asyncEnd with its request id and status', async () => {
    const res = await fetch(`${tree.url}/api/ping?token=secret`, { headers: { 'x-request-id': 'dc-api' } })
    expect(res.status).toBe(200)
    const seen = await settled('dc-api', ['svc:gateway:request'])
    expect(order(seen, 'svc:gateway:request')).toEqual(['start', 'end', 'asyncStart', 'asyncEnd'])
    expect(order(seen, 'svc:gateway:proxy')).toEqual([])
    const done = seen.find((e) => e.event === 'asyncEnd')!
    expect(done).toMatchObject({ dispatch: 'api', method: 'GET', path: '/api/ping', statusCode: 200 })
    expect(JSON.stringify(seen)).not.toContain('secret')
  })

  it('a page request: the request and its proxy hop to the sidecar', async () => {
    const res = await fetch(`${tree.url}/some/page?q=1`, { headers: { 'x-request-id': 'dc-ui' } })
    expect(res.status).toBe(200)
    const seen = await settled('dc-ui', ['svc:gateway:request', 'svc:gateway:proxy'])
    expect(order(seen, 'svc:gateway:proxy')).toEqual(['start', 'end', 'asyncStart', 'asyncEnd'])
    const hop = seen.find((e) => e.channel === 'svc:gateway:proxy' && e.event === 'start')!
    expect(hop.method).toBe('GET')
    expect(hop.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/some\/page$/)
    expect(seen.find((e) => e.channel === 'svc:gateway:request' && e.event === 'asyncEnd')).toMatchObject({ dispatch: 'ui', statusCode: 200 })
  })

  it('a failed hop publishes error on both channels before asyncStart', async () => {
    const res = await fetch(`${tree.url}/hangup`, { headers: { 'x-request-id': 'dc-error' } })
    expect(res.status).toBe(502)
    const seen = await settled('dc-error', ['svc:gateway:request', 'svc:gateway:proxy'])
    expect(order(seen, 'svc:gateway:proxy')).toEqual(['start', 'end', 'error', 'asyncStart', 'asyncEnd'])
    expect(order(seen, 'svc:gateway:request')).toEqual(['start', 'end', 'error', 'asyncStart', 'asyncEnd'])
    expect(seen.find((e) => e.channel === 'svc:gateway:proxy' && e.event === 'error')?.error).toBeTruthy()
    expect(seen.find((e) => e.channel === 'svc:gateway:request' && e.event === 'asyncEnd')?.statusCode).toBe(502)
  })

  it('a WebSocket: svc:gateway:ws from the upgrade to the end of the socket', async () => {
    const socket = new WebSocket(`${tree.url.replace('http:', 'ws:')}/socket`, { headers: { 'x-request-id': 'dc-ws' } })
    await new Promise((resolve, reject) => {
      socket.once('open', resolve)
      socket.once('error', reject)
    })
    socket.close()
    const seen = await settled('dc-ws', ['svc:gateway:ws'])
    expect(order(seen, 'svc:gateway:ws')).toEqual(['start', 'end', 'asyncStart', 'asyncEnd'])
    expect(seen.find((e) => e.event === 'asyncEnd')).toMatchObject({ dispatch: 'ui', method: 'GET', path: '/socket', statusCode: 101 })
    expect(order(seen, 'svc:gateway:request')).toEqual([])
  })
})
