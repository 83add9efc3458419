import { connect } from 'node:net'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPO, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'

/**
 * Found by the gateway fuzz test: `POST /ws` with `Upgrade: websocket` reached the sidecar as a
 * GET WebSocket handshake. A handshake is a GET (RFC 6455 §4.1); other methods get a 400.
 */
let svc: SvcTree
const dir = mkdtempSync(join(tmpdir(), 'svc-upgrade-'))
const record = join(dir, 'sidecar.jsonl')

beforeAll(async () => {
  svc = await startSvc({
    env: {
      SVC_UI_COMMAND: JSON.stringify(['node', `${REPO}test/fixtures/fuzz-sidecar.mjs`, '{port}']),
      SVC_FUZZ_RECORD: record,
      SVC_UI_HEALTH_PATH: '/__fuzz_health',
    },
  })
})

afterAll(async () => {
  await stopAllTrees()
  rmSync(dir, { recursive: true, force: true })
})

/** Send a handshake, resolve with the response head (the socket is closed then). */
function handshake(method: string, id: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(svc.port, '127.0.0.1')
    let data = ''
    const done = (): void => {
      socket.destroy()
      resolve(data)
    }
    socket.setEncoding('latin1')
    socket.on('data', (c: string) => {
      data += c
      if (data.includes('\r\n\r\n')) done()
    })
    socket.on('end', done)
    socket.on('error', reject)
    socket.write(
      `${method} /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Fuzz-Id: ${id}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nContent-Length: 0\r\n\r\n',
    )
  })
}

const upgradesSeen = (): string[] =>
  readFileSync(record, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { kind: string; rawHeaders?: string[] })
    .filter((r) => r.kind === 'upgrade')
    .map((r) => r.rawHeaders![r.rawHeaders!.findIndex((h) => h.toLowerCase() === 'x-fuzz-id') + 1]!)

describe('WebSocket handshake method', () => {
  it.each(['POST', 'PUT', 'DELETE', 'OPTIONS'])('refuses %s with Upgrade: websocket (400, never forwarded)', async (method) => {
    const head = await handshake(method, `m-${method}`)
    expect(head).toMatch(/^HTTP\/1\.1 400 /)
    expect(head).toContain('Connection: close')
  })

  it('still proxies a GET handshake, and the sidecar saw only that one', async () => {
    const head = await handshake('GET', 'm-GET')
    expect(head).toMatch(/^HTTP\/1\.1 101 /)
    expect(upgradesSeen()).toEqual(['m-GET'])
  })
})
