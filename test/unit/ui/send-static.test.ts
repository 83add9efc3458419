import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pickEncoding } from '../../../src/ui/server/accept-encoding.js'
import { COMPRESS_MIN_BYTES, sendCompressible } from '../../../src/ui/server/compress-body.js'
import { etagMatches, sendStatic } from '../../../src/ui/server/send-static.js'
import { KEEP_MAX_BYTES } from '../../../src/ui/server/file-body.js'
import { ClientAssets, generatedStyle, REVALIDATE } from '../../../src/ui/server/static-files.js'

const APP = `console.log(${JSON.stringify('static body '.repeat(400))})\n`
/** Over KEEP_MAX_BYTES: streamed per request, not kept. */
const BIG = Buffer.from(Array.from({ length: 40_000 }, (_, i) => `v${i};`).join('').repeat(2))

/** A built client dir by hand: one hashed entry with both encodings, one file without any. */
function writeClient(dir: string, appName: string): void {
  const app = Buffer.from(APP)
  const br = brotliCompressSync(app)
  const gz = gzipSync(app)
  writeFileSync(join(dir, appName), app)
  writeFileSync(join(dir, `${appName}.br`), br)
  writeFileSync(join(dir, `${appName}.gz`), gz)
  writeFileSync(join(dir, 'logo-ABCD1234.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]))
  writeFileSync(join(dir, 'big-CCCC3333.js'), BIG)
  writeFileSync(join(dir, 'secret.txt'), 'not listed')
  const manifest = {
    version: 1,
    entries: { 'app.js': appName },
    chunkStyles: {},
    files: { [appName]: { bytes: app.byteLength, br: br.byteLength, gzip: gz.byteLength }, 'logo-ABCD1234.png': { bytes: 4, br: null, gzip: null }, 'big-CCCC3333.js': { bytes: BIG.byteLength, br: null, gzip: null } },
  }
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest))
}

interface Answer {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
}

describe('static files on the wire', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-static-'))
  let assets: ClientAssets
  let server: Server
  let port: number
  const theme = generatedStyle('theme-vars', `:root { --svc-accent: #0f766e; }\n${':root[data-theme] { --svc-bg: #fff; }\n'.repeat(20)}`)

  beforeAll(async () => {
    writeClient(dir, 'app-AAAA1111.js')
    assets = new ClientAssets(dir)
    server = createServer((req, res) => {
      const name = decodeURIComponent(req.url!.slice(1))
      if (name === 'shell' || name === 'tiny') {
        void sendCompressible(req, res, 200, { 'content-type': 'text/html; charset=utf-8' }, name === 'tiny' ? '<p>hi</p>' : `<p>${'page '.repeat(300)}</p>`)
        return
      }
      const file = name === theme.name ? theme.file : assets.get(name)
      if (!file) res.writeHead(404).end()
      else sendStatic(req, res, file)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as { port: number }).port
  })
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve))
    rmSync(dir, { recursive: true, force: true })
  })

  const get = (path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', path, method, headers }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
      })
      req.on('error', reject)
      req.end()
    })
  const decoded = (a: Answer): string => {
    const enc = a.headers['content-encoding']
    return (enc === 'br' ? brotliDecompressSync(a.body) : enc === 'gzip' ? gunzipSync(a.body) : a.body).toString()
  }

  it('sends the stored encoding the client prefers, q-values honoured, else the plain file', async () => {
    const cases: [string | undefined, string | undefined][] = [
      [undefined, undefined],
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0.5, gzip', 'gzip'],
      ['gzip;q=0.8, *;q=0.1', 'gzip'],
      ['*', 'br'],
      ['br;q=0, gzip;q=0', undefined],
      ['identity', undefined],
      ['deflate', undefined],
    ]
    for (const [accept, expected] of cases) {
      const a = await get('/app-AAAA1111.js', accept === undefined ? {} : { 'accept-encoding': accept })
      expect(a.status, String(accept)).toBe(200)
      expect(a.headers['content-encoding'], String(accept)).toBe(expected)
      expect(a.headers['content-length'], String(accept)).toBe(String(a.body.byteLength))
      expect(a.headers.vary).toBe('Accept-Encoding')
      expect(a.headers['x-content-type-options']).toBe('nosniff')
      expect(a.headers['cache-control']).toBe('public, max-age=31536000, immutable')
      expect(decoded(a)).toBe(APP)
    }
  })

  it('gives each encoding its own ETag and answers 304 to If-None-Match with it', async () => {
    const br = await get('/app.js', { 'accept-encoding': 'br' })
    expect(br.headers.etag).toBe('"app-AAAA1111.js.br"')
    expect(br.headers['cache-control']).toBe(REVALIDATE)
    const again = await get('/app.js', { 'accept-encoding': 'br', 'if-none-match': br.headers.etag! })
    expect(again.status).toBe(304)
    expect(again.body.byteLength).toBe(0)
    expect(again.headers.etag).toBe('"app-AAAA1111.js.br"')
    expect(again.headers.vary).toBe('Accept-Encoding')
    // The brotli ETag does not validate the gzip body.
    expect((await get('/app.js', { 'accept-encoding': 'gzip', 'if-none-match': br.headers.etag! })).status).toBe(200)
    expect((await get('/app.js', { 'if-none-match': 'W/"x", W/"app-AAAA1111.js"' })).status).toBe(304)
    expect((await get('/app.js', { 'if-none-match': '*' })).status).toBe(304)
  })

  it('HEAD has the GET headers and no body; a file without encodings has no Vary', async () => {
    const head = await get('/app-AAAA1111.js', { 'accept-encoding': 'gzip' }, 'HEAD')
    expect(head.body.byteLength).toBe(0)
    expect(head.headers['content-encoding']).toBe('gzip')
    const png = await get('/logo-ABCD1234.png', { 'accept-encoding': 'br' })
    expect(png.headers['content-type']).toBe('image/png')
    expect(png.headers['content-encoding']).toBeUndefined()
    expect(png.headers.vary).toBeUndefined()
  })

  it('streams a large file whole, request after request', async () => {
    expect(BIG.byteLength).toBeGreaterThan(KEEP_MAX_BYTES)
    const answers = await Promise.all([1, 2, 3].map(() => get('/big-CCCC3333.js')))
    for (const a of answers) {
      expect(a.headers['content-length']).toBe(String(BIG.byteLength))
      expect(a.body.equals(BIG)).toBe(true)
    }
    expect((await get('/big-CCCC3333.js')).body.equals(BIG)).toBe(true)
  })

  it('a client that goes away mid-body leaves later answers whole', async () => {
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((resolve) => {
        const req = request({ port, host: '127.0.0.1', path: '/big-CCCC3333.js' }, (res) => {
          res.once('data', () => {
            req.destroy()
            resolve()
          })
        })
        req.on('error', () => resolve())
        req.end()
      })
    }
    const again = await Promise.all([1, 2, 3].map(() => get('/big-CCCC3333.js')))
    for (const a of again) expect(a.body.equals(BIG)).toBe(true)
    expect(decoded(await get('/app-AAAA1111.js', { 'accept-encoding': 'br' }))).toBe(APP)
  })

  it('serves only names the manifest lists', async () => {
    for (const path of ['/secret.txt', '/manifest.json', '/app-AAAA1111.js.br', '/..%2fsecret.txt', '/%2e%2e/etc/passwd']) expect((await get(path)).status, path).toBe(404)
  })

  it('a generated stylesheet (the theme) is named by its content and served from memory, compressed', async () => {
    expect(theme.name).toMatch(/^theme-vars-[\w-]{12}\.css$/)
    expect(generatedStyle('theme-vars', ':root{}').name).not.toBe(theme.name)
    expect(generatedStyle('theme-vars', '\n').empty).toBe(true)
    const a = await get(`/${theme.name}`, { 'accept-encoding': 'br' })
    expect(a.headers['content-encoding']).toBe('br')
    expect(a.headers['content-type']).toBe('text/css; charset=utf-8')
    expect(decoded(a)).toContain('--svc-accent: #0f766e')
  })

  it('re-reads the manifest when a rebuild changed it (at most once a second)', () => {
    writeClient(dir, 'app-BBBB2222.js')
    utimesSync(join(dir, 'manifest.json'), new Date(), new Date(Date.now() + 5000))
    const now = Date.now() + 10_000
    expect(assets.refresh(now)).toBe(true)
    expect(assets.entry('app.js')).toBe('app-BBBB2222.js')
    expect(assets.get('app.js')?.etag).toBe('app-BBBB2222.js')
    expect(assets.refresh(now + 10)).toBe(false)
  })

  it('compresses HTML on the fly above the threshold, and says the answer varies either way', async () => {
    const big = await get('/shell', { 'accept-encoding': 'gzip, br' })
    expect(big.headers['content-encoding']).toBe('br')
    expect(big.headers.vary).toBe('Accept-Encoding')
    expect(decoded(big)).toContain('page page')
    expect((await get('/shell', { 'accept-encoding': 'gzip' })).headers['content-encoding']).toBe('gzip')
    expect((await get('/shell')).headers['content-encoding']).toBeUndefined()
    const tiny = await get('/tiny', { 'accept-encoding': 'br' })
    expect('<p>hi</p>'.length).toBeLessThan(COMPRESS_MIN_BYTES)
    expect(tiny.headers['content-encoding']).toBeUndefined()
    expect(tiny.headers.vary).toBe('Accept-Encoding')
  })

  it('pickEncoding and etagMatches on their own', () => {
    expect(pickEncoding('br, gzip', ['gzip'])).toBe('gzip')
    expect(pickEncoding(['gzip;q=0.1', 'br'], ['br', 'gzip'])).toBe('br')
    expect(pickEncoding('br', [])).toBeNull()
    expect(etagMatches('"a", "b"', '"b"')).toBe(true)
    expect(etagMatches('"a"', '"b"')).toBe(false)
    expect(etagMatches(undefined, '"b"')).toBe(false)
  })
})
