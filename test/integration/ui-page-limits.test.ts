import { createHash, randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PageClient, PageServerFixture, textOf, type Sidecar } from '../helpers/ui-sidecar.js'

/**
 * The bundled page server's bounds on what one browser sends (real sidecar, page threads):
 * page-socket messages over `ui_max_message_bytes` are refused before they are read (1009), deep
 * or huge JSON is refused after, and files travel over the upload endpoint instead.
 */
const MiB = 1024 * 1024

describe('page-socket messages and uploads (real sidecar)', () => {
  const server = new PageServerFixture()
  let sc: Sidecar
  const widgetId = (render: Awaited<ReturnType<PageClient['render']>>, key: string): string => render.main.find((n) => n.props.key === key)!.id

  beforeAll(async () => {
    sc = await server.start('test/fixtures/ui-limits-app.ts', { SVC_UI_PAGE_THREADS: '2', SVC_UI_MAX_UPLOAD_BYTES: String(4 * MiB), SVC_LOG_LEVEL: 'info' })
  }, 70_000)
  afterAll(() => server.stop())

  it('a message over ui_max_message_bytes (default 1 MiB) closes only its socket with 1009 and one warn line; one under it is read', async () => {
    const other = await server.connect()
    const { render: ro } = await server.hello(other)
    const c = await server.connect()
    const { render } = await server.hello(c)
    // Just under the limit: read, parsed in the page thread, dropped as a bad value (the button takes booleans).
    c.send({ type: 'widget', id: widgetId(render, 'add'), value: 'x'.repeat(MiB - 200) })
    c.send({ type: 'widget', id: widgetId(render, 'add'), value: true, trigger: true })
    // The refusal is answered by the last render again; the click's render reflects both messages.
    expect(textOf(await c.settled(10_000))).toBe('count=1')

    const closed = once(c.ws, 'close') as Promise<[number, Buffer]>
    c.ws.send(JSON.stringify({ v: 1, type: 'widget', id: widgetId(render, 'add'), value: 'x'.repeat(2 * MiB) }))
    const [code] = await closed
    expect(code).toBe(1009)
    const line = await logLine(sc, 'SVC_ERR_UI_MESSAGE_TOO_LARGE')
    expect(JSON.parse(line)).toMatchObject({ level: 'warn', logger: 'svc.ui', limit_bytes: MiB })

    other.send({ type: 'widget', id: widgetId(ro, 'add'), value: true, trigger: true })
    expect(textOf(await other.render())).toBe('count=1')
  }, 60_000)

  it('before its hello a socket reads at most 64 KiB', async () => {
    const c = await server.connect()
    const closed = once(c.ws, 'close') as Promise<[number, Buffer]>
    c.ws.send(JSON.stringify({ v: 1, type: 'hello', sessionId: null, path: '/', query: 'q'.repeat(70 * 1024) }))
    expect((await closed)[0]).toBe(1009)
  }, 30_000)

  it('JSON nested too deep, with too many entries or not UTF-8 is refused as malformed; the socket stays usable', async () => {
    const c = await server.connect()
    const { render } = await server.hello(c)
    const id = widgetId(render, 'add')
    c.ws.send(`{"v":1,"type":"widget","id":"${id}","value":${'['.repeat(40)}${']'.repeat(40)}}`)
    expect((await c.next('error')).message).toMatch(/malformed/)
    c.ws.send(JSON.stringify({ v: 1, type: 'widget', id, value: Array.from({ length: 100_001 }, () => 0) }))
    expect((await c.next('error')).message).toMatch(/malformed/)
    // Text that is not UTF-8 (the page server leaves that check to where the message is decoded).
    c.ws.send(Buffer.concat([Buffer.from(`{"v":1,"type":"widget","id":"${id}","value":"`), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]), { binary: false })
    expect((await c.next('error')).message).toMatch(/malformed/)
    c.send({ type: 'widget', id, value: true, trigger: true })
    expect(textOf(await c.render())).toBe('count=1')
  }, 30_000)

  it('a file larger than the message limit goes over the upload endpoint; the widget message carries its reference', async () => {
    const c = await server.connect()
    const { session, render } = await server.hello(c)
    const bytes = randomBytes(3 * MiB)
    const up = await upload(sc.port, { session: session.sessionId, name: 'отчёт 1.bin', type: 'application/octet-stream', body: bytes })
    expect(up.status).toBe(200)
    const { ref, size } = up.json as { ref: string; size: number }
    expect(size).toBe(bytes.byteLength)
    const files = widgetId(render, 'files')
    c.send({ type: 'widget', id: files, value: [{ name: 'отчёт 1.bin', type: 'application/octet-stream', size, ref }] })
    const sha = createHash('sha256').update(bytes).digest('hex')
    const shown = textOf(await c.render(15_000))
    expect(shown).toContain(`file отчёт 1.bin ${bytes.byteLength} ${sha}`)

    // A second file; then the first is removed by naming only the second (the browser's list).
    const small = Buffer.from('a,b\n1,2\n')
    const second = (await upload(sc.port, { session: session.sessionId, name: 'b.csv', type: 'text/csv', body: small })).json as { ref: string }
    c.send({ type: 'widget', id: files, value: [{ name: 'отчёт 1.bin', type: 'application/octet-stream', size, ref }, { name: 'b.csv', type: 'text/csv', size: small.byteLength, ref: second.ref }] })
    expect(textOf(await c.render(15_000))).toContain('file b.csv 8 ')
    c.send({ type: 'widget', id: files, value: [{ name: 'b.csv', type: 'text/csv', size: small.byteLength, ref: second.ref }] })
    const after = textOf(await c.render(15_000))
    expect(after).toContain('file b.csv 8 ')
    expect(after).not.toContain('отчёт')
  }, 60_000)

  it('refuses uploads over ui_max_upload_bytes (413, before or while reading), without a session (400) or for an unknown one (404)', async () => {
    const c = await server.connect()
    const { session } = await server.hello(c)
    const big = Buffer.alloc(5 * MiB)
    const declared = await upload(sc.port, { session: session.sessionId, name: 'big', type: 'application/octet-stream', body: big })
    expect(declared.status).toBe(413)
    expect(declared.json).toMatchObject({ error: 'payload_too_large', request_id: expect.any(String) })
    const streamed = await upload(sc.port, { session: session.sessionId, name: 'big', type: 'application/octet-stream', body: big, chunked: true })
    expect(streamed.status).toBe(413)
    const anonymous = await upload(sc.port, { session: null, name: 'a', type: 'text/plain', body: Buffer.from('a') })
    expect(anonymous.status).toBe(400)
    expect(anonymous.json).toMatchObject({ error: 'bad_request' })
    const unknown = await upload(sc.port, { session: 'x'.repeat(32), name: 'a', type: 'text/plain', body: Buffer.from('a') })
    expect(unknown.status).toBe(404)
    expect(unknown.json).toMatchObject({ error: 'session_not_found' })
    expect((await fetch(`${sc.url}/_stcore/health`)).status).toBe(200)
  }, 60_000)
})

async function logLine(sc: Sidecar, text: string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const line = sc.stdout().split('\n').find((l) => l.includes(text))
    if (line) return line
    if (Date.now() > deadline) throw new Error(`no log line with ${text} within ${timeoutMs} ms: ${sc.stdout()}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

async function upload(port: number, o: { session: string | null; name: string; type: string; body: Buffer; chunked?: boolean }): Promise<{ status: number; json: unknown }> {
  const headers: Record<string, string> = { 'content-type': o.type, 'x-svc-file-name': encodeURIComponent(o.name) }
  if (o.session !== null) headers['x-svc-session'] = o.session
  if (!o.chunked) headers['content-length'] = String(o.body.byteLength)
  const req = request({ host: '127.0.0.1', port, path: '/_stcore/upload', method: 'POST', headers })
  const answered = once(req, 'response') as Promise<[import('node:http').IncomingMessage]>
  // The server may answer (and close) before the whole body is written.
  req.on('error', () => undefined)
  if (o.chunked) for (let at = 0; at < o.body.byteLength; at += 256 * 1024) req.write(o.body.subarray(at, at + 256 * 1024))
  else req.write(o.body)
  req.end()
  const [res] = await answered
  const chunks: Buffer[] = []
  for await (const chunk of res) chunks.push(chunk as Buffer)
  return { status: res.statusCode!, json: JSON.parse(Buffer.concat(chunks).toString()) }
}
