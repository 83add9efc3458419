import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { request, type IncomingHttpHeaders } from 'node:http'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readCmdline } from '../../src/process/process-check.js'
import { REPO, descendants, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'
import type { ClientManifest } from '../../src/ui/server/client-manifest.js'

interface Answer {
  status: number
  headers: IncomingHttpHeaders
  /** The bytes as they came over the socket (not decoded). */
  raw: Buffer
}

/** One GET over a fresh connection, body kept as sent (fetch would decode it). */
function get(url: string, headers: Record<string, string> = {}, timeoutMs = 10_000): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { connection: 'close', ...headers }, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, raw: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)))
    req.on('error', reject)
    req.end()
  })
}

function decode(a: Answer): Buffer {
  const enc = a.headers['content-encoding']
  return enc === 'br' ? brotliDecompressSync(a.raw) : enc === 'gzip' ? gunzipSync(a.raw) : a.raw
}

const manifest = (): ClientManifest => JSON.parse(readFileSync(join(REPO, 'dist/client/manifest.json'), 'utf8')) as ClientManifest
const ROOT = '/tools'

describe('pages on the wire through svc run (bundled page server)', () => {
  let svc: SvcTree
  let base: string
  beforeAll(async () => {
    svc = await startSvc({
      target: `${REPO}test/e2e/fixtures/theme-app.ts:app`,
      args: ['--root-path', ROOT],
      env: { SVC_UI_COMMAND: undefined, SVC_UI_CSP: '{"img-src":["https://images.example.com"]}' },
      timeoutMs: 60_000,
    })
    base = `${svc.url}${ROOT}`
  }, 90_000)
  afterAll(stopAllTrees, 30_000)

  const shellHtml = async (): Promise<string> => decode(await get(`${base}/`, { 'accept-encoding': 'br' })).toString()
  /** The scripts and styles the shell links (the app icon is checked on its own). */
  const shellLinks = async (): Promise<string[]> =>
    [...(await shellHtml()).matchAll(/<(?:script|link)(?![^>]*rel="icon")[^>]*(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)

  it('the HTML shell: no-store, compressed, the default CSP with the app additions, only hashed files linked', async () => {
    const shell = await get(`${base}/`, { accept: 'text/html', 'accept-encoding': 'gzip, deflate, br' })
    expect(shell.status).toBe(200)
    expect(shell.headers['cache-control']).toBe('no-store')
    expect(shell.headers['content-encoding']).toBe('br')
    expect(shell.headers.vary).toBe('Accept-Encoding')
    const csp = shell.headers['content-security-policy']!
    expect(csp).toContain("script-src 'self';")
    // The app's addition joins the defaults (and the origins svc's own elements need, e.g. map tiles).
    expect(csp).toMatch(/img-src 'self' data: blob:[^;]* https:\/\/images\.example\.com;/)
    expect(csp).not.toMatch(/unsafe-/)
    const links = await shellLinks()
    expect(links.length).toBe(4)
    for (const link of links) expect(link, link).toMatch(/^\/tools\/_stcore\/static\/[\w-]+-[\w-]{8,12}\.(?:js|css)$/)
    // The app icon: under the base path, not content-hashed (the setting may change), revalidated hourly.
    expect(await shellHtml()).toContain('<link rel="icon" href="/tools/favicon.ico"')
    const icon = await get(`${base}/favicon.ico`)
    expect(icon.status).toBe(200)
    expect(icon.headers['cache-control']).toBe('public, max-age=3600')
    expect(icon.headers['x-content-type-options']).toBe('nosniff')
  })

  it('every script and style (lazy chunks too) is precompressed, immutable, ETag-validated and nosniff', async () => {
    const m = manifest()
    const paths = [...(await shellLinks()), ...Object.keys(m.files).map((f) => `${ROOT}/_stcore/static/${f}`)]
    expect(paths.some((p) => /chunks\/render-/.test(p))).toBe(true)
    for (const path of new Set(paths)) {
      const plain = await get(`${svc.url}${path}`)
      // Fonts (KaTeX's woff2) are compressed by their format: sent as they are, still immutable.
      if (path.endsWith('.woff2')) {
        const font = await get(`${svc.url}${path}`, { 'accept-encoding': 'gzip, deflate, br' })
        expect(font.headers['content-encoding'], path).toBeUndefined()
        expect(font.headers['content-type'], path).toBe('font/woff2')
        expect(font.headers['cache-control'], path).toBe('public, max-age=31536000, immutable')
        continue
      }
      // The app's theme stylesheet is made by the page server, not the build (not in the manifest).
      const sizes = m.files[path.slice(`${ROOT}/_stcore/static/`.length)]
      for (const [accept, encoding] of [['gzip, deflate, br', 'br'], ['gzip', 'gzip']] as const) {
        const a = await get(`${svc.url}${path}`, { 'accept-encoding': accept })
        expect(a.status, path).toBe(200)
        // Only a file too small to shrink (a chunk that only re-exports, about 100 bytes) goes as
        // it is; Vary comes with every file stored in some encoding (there is a choice to vary on).
        const expected = sizes?.[encoding] === null ? undefined : encoding
        if (expected === undefined) expect(sizes!.bytes, path).toBeLessThan(200)
        expect(a.headers['content-encoding'], `${path} ${accept}`).toBe(expected)
        expect(a.headers['cache-control'], path).toBe('public, max-age=31536000, immutable')
        const stored = sizes === undefined || sizes.br !== null || sizes.gzip !== null
        expect(a.headers.vary, path).toBe(stored ? 'Accept-Encoding' : undefined)
        expect(a.headers['x-content-type-options'], path).toBe('nosniff')
        expect(a.headers['content-type'], path).toMatch(/^text\/(?:javascript|css); charset=utf-8$/)
        if (expected) expect(a.raw.byteLength, path).toBeLessThan(plain.raw.byteLength)
        expect(decode(a).equals(plain.raw), path).toBe(true)
        const again = await get(`${svc.url}${path}`, { 'accept-encoding': accept, 'if-none-match': a.headers.etag! })
        expect(again.status, path).toBe(304)
        expect(again.raw.byteLength).toBe(0)
      }
    }
  })

  it('names that are not hashed are revalidated by ETag (304) instead of re-sent', async () => {
    for (const path of ['/_stcore/static/app.js', '/_stcore/static/app.css', '/_stcore/theme.css']) {
      const first = await get(`${base}${path}`, { 'accept-encoding': 'br' })
      expect(first.status, path).toBe(200)
      expect(first.headers['cache-control'], path).toBe('no-cache')
      expect(first.headers.etag, path).toMatch(/^"[\w.-]+"$/)
      const again = await get(`${base}${path}`, { 'accept-encoding': 'br', 'if-none-match': first.headers.etag! })
      expect(again.status, path).toBe(304)
    }
  })

  it('gateway workers serve the static files themselves: they load while the page server is stopped', async () => {
    const sidecar = descendants(svc.pid).find((p) => readCmdline(p)?.[0] === 'svc sidecar')
    expect(sidecar).toBeDefined()
    const links = await shellLinks()
    process.kill(sidecar!, 'SIGSTOP')
    try {
      for (const link of links) {
        const a = await get(`${svc.url}${link}`, { 'accept-encoding': 'br' }, 5_000)
        expect(a.status, link).toBe(200)
        expect(a.headers['x-request-id'], link).toBeDefined()
      }
      // The shell still needs the page server (it is the proof that the files above did not).
      await expect(get(`${base}/`, {}, 1_000)).rejects.toThrow(/no answer/)
    } finally {
      process.kill(sidecar!, 'SIGCONT')
    }
    expect((await get(`${base}/`)).status).toBe(200)
  })

  it('no path reaches a file the build did not list, decoded or not', async () => {
    for (const path of ['/_stcore/static/manifest.json', '/_stcore/static/..%2f..%2fpackage.json', '/_stcore/static/%2e%2e/%2e%2e/package.json', '/_stcore/static/chunks/..%2f..%2f..%2fpackage.json']) {
      const a = await get(`${base}${path}`)
      expect([400, 404], path).toContain(a.status)
      expect(a.raw.toString(), path).not.toContain('"name": "svc"')
    }
  })
})

describe('a third-party sidecar (ui_command) that compresses its own answers', () => {
  let svc: SvcTree
  beforeAll(async () => {
    svc = await startSvc({ env: { SVC_UI_COMMAND: JSON.stringify(['node', `${REPO}test/fixtures/compressing-sidecar.mjs`, '{port}']) } })
  }, 60_000)
  afterAll(stopAllTrees, 30_000)

  it('arrives compressed and byte for byte as the sidecar sent it, its static paths included', async () => {
    for (const path of ['/_stcore/static/app.js', '/big.json']) {
      for (const accept of ['br', 'gzip', '']) {
        const a = await get(`${svc.url}${path}`, accept === '' ? {} : { 'accept-encoding': accept })
        expect(a.status, path).toBe(200)
        expect(a.headers['content-encoding'], `${path} ${accept}`).toBe(accept === '' ? undefined : accept)
        expect(createHash('sha256').update(a.raw).digest('hex'), `${path} ${accept}`).toBe(a.headers['x-body-sha256'])
        // Its own caching headers, not the bundled page server's.
        expect(a.headers['cache-control']).toBe('no-cache')
      }
    }
    const script = decode(await get(`${svc.url}/_stcore/static/app.js`, { 'accept-encoding': 'br' })).toString()
    expect(script).toContain('third-party app')
  })
})
