import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { once } from 'node:events'
import { spawn } from 'node:child_process'
import { WebSocket } from 'ws'
import { startSvc, stopAllTrees, descendants, fdTargets, type SvcTree } from '../helpers/svc-process.js'

/** Count the sockets a process holds (its descriptors that are sockets). */
function socketCount(pid: number): number {
  return fdTargets(pid).filter((t) => t.startsWith('socket:')).length
}

async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

describe('WebSocket proxy', () => {
  let svc: SvcTree
  beforeAll(async () => {
    svc = await startSvc()
  })
  afterAll(stopAllTrees)

  const wsUrl = (path: string) => svc.url.replace('http', 'ws') + path

  it('negotiates subprotocols end to end and echoes text and binary frames', async () => {
    const ws = new WebSocket(wsUrl('/_stcore/stream?x=1'), ['chat.v1', 'chat.v2'], { headers: { 'x-request-id': 'ws-rid', cookie: 's=1' } })
    const [hello] = await once(ws, 'message')
    const info = JSON.parse(hello.toString())
    expect(ws.protocol).toBe('chat.v2')
    expect(info.url).toBe('/_stcore/stream?x=1')
    expect(info.headers['x-request-id']).toBe('ws-rid')
    expect(info.headers.cookie).toBe('s=1')
    expect(info.headers['sec-websocket-protocol'].split(/\s*,\s*/)).toEqual(['chat.v1', 'chat.v2'])
    ws.send('hi')
    const [text, isBinaryText] = await once(ws, 'message')
    expect(text.toString()).toBe('hi')
    expect(isBinaryText).toBe(false)
    ws.send(Buffer.from([1, 2, 3]))
    const [bin, isBinary] = await once(ws, 'message')
    expect(isBinary).toBe(true)
    expect([...bin]).toEqual([1, 2, 3])
    ws.close(1000)
    await once(ws, 'close')
  })

  it('propagates an upstream close code and reason to the client (4001)', async () => {
    const ws = new WebSocket(wsUrl('/ws'))
    await once(ws, 'message')
    ws.send('close4001')
    const [code, reason] = await once(ws, 'close')
    expect(code).toBe(4001)
    expect(reason.toString()).toBe('custom reason')
  })

  it('fails the handshake with 502 when the upstream refuses it, and 404 under the API mount', async () => {
    for (const [path, status] of [
      ['/refuse', 502],
      ['/api/not-a-websocket', 404],
    ] as const) {
      const ws = new WebSocket(wsUrl(path))
      ws.on('error', () => {})
      const [, res] = await once(ws, 'unexpected-response')
      expect(res.statusCode).toBe(status)
      ws.terminate()
    }
  })

  it('cleans up both hops when a client vanishes without a close frame', async () => {
    const { readFileSync } = await import('node:fs')
    const gatewayPid = descendants(svc.pid).find((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').startsWith('svc gateway'))!
    const baseline = socketCount(gatewayPid)
    // A separate process opens a WebSocket and is SIGKILLed: no close frame, just a dead peer.
    const client = spawn(process.execPath, [
      '-e',
      `const W=require('ws');const w=new W(${JSON.stringify(wsUrl('/ws'))});w.on('message',()=>{console.log('open')})`,
    ], { stdio: ['ignore', 'pipe', 'inherit'], cwd: process.cwd() })
    // The client printed after the sidecar's hello came through: both hops of the tunnel are open.
    await once(client.stdout!, 'data')
    client.kill('SIGKILL')
    await waitFor(() => socketCount(gatewayPid) <= baseline, 5_000, 'the gateway to release both sockets')
  })
})
