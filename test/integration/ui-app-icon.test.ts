import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startSidecar, type Sidecar } from '../helpers/ui-sidecar.js'

/**
 * The app icon at /favicon.ico (was a 404 on every page) and the map styles in the shell, served
 * by the real page server: svc's own icon, an image file, an emoji and a URL, under a root path.
 */
describe('app icon and map styles from the page server', () => {
  const sidecars: Sidecar[] = []
  const dir = mkdtempSync(join(tmpdir(), 'svc-icon-'))
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3])
  writeFileSync(join(dir, 'brand.png'), png)

  afterAll(async () => {
    for (const s of sidecars) await s.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  async function start(env: Record<string, string>): Promise<Sidecar> {
    const sc = await startSidecar('test/fixtures/ui-app.ts', { SVC_ROOT_PATH: '/tools', ...env })
    sidecars.push(sc)
    return sc
  }

  it('serves svc’s own icon by default, under the root path and at the bare root, and links it under a root path only', async () => {
    const sc = await start({})
    for (const path of ['/tools/favicon.ico', '/favicon.ico']) {
      const res = await fetch(`${sc.url}${path}`)
      expect(res.status, path).toBe(200)
      expect(res.headers.get('content-type')).toBe('image/svg+xml')
      expect(res.headers.get('content-security-policy')).toMatch(/sandbox/)
      expect(await res.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/)
    }
    const head = await fetch(`${sc.url}/tools/favicon.ico`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    const shell = await (await fetch(`${sc.url}/tools/`)).text()
    expect(shell).toContain('<link rel="icon" href="/tools/favicon.ico" type="image/svg+xml">')
    // Default map styles stay out of the page (the map chunk knows them).
    expect(shell).toContain('<script type="application/json" id="svc-config">{"basePath":"/tools","title":"UI fixture"}</script>')
    // At the root the browser's own request for /favicon.ico finds it: no link (issue #25: no
    // bytes in the shell for an icon the app did not set).
    const atRoot = await start({ SVC_ROOT_PATH: '' })
    expect(await (await fetch(`${atRoot.url}/favicon.ico`)).text()).toMatch(/^<svg /)
    expect(await (await fetch(`${atRoot.url}/`)).text()).not.toContain('rel="icon"')
  })

  it('an image file, an emoji, a URL; the map styles the app sets', async () => {
    const file = await start({ SVC_ICON: join(dir, 'brand.png'), SVC_UI_MAP_STYLE_URL: '/api/tiles/style.json' })
    const res = await fetch(`${file.url}/tools/favicon.ico`)
    expect(res.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await res.arrayBuffer())).toEqual(png)
    const shell = await (await fetch(`${file.url}/tools/`)).text()
    expect(shell).toContain('<link rel="icon" href="/tools/favicon.ico" type="image/png">')
    expect(shell).toContain('"mapStyle":{"light":"/api/tiles/style.json","dark":"/api/tiles/style.json"}')

    const emoji = await start({ SVC_ICON: '📊' })
    expect(await (await fetch(`${emoji.url}/favicon.ico`)).text()).toContain('📊')
    expect(await (await fetch(`${emoji.url}/tools/`)).text()).toContain('<link rel="icon" href="/tools/favicon.ico" type="image/svg+xml">')

    const url = await start({ SVC_ICON: 'https://cdn.example.com/icon.png' })
    const redirect = await fetch(`${url.url}/tools/favicon.ico`, { redirect: 'manual' })
    expect(redirect.status).toBe(302)
    expect(redirect.headers.get('location')).toBe('https://cdn.example.com/icon.png')
    expect(await (await fetch(`${url.url}/tools/`)).text()).toContain('<link rel="icon" href="https://cdn.example.com/icon.png">')
  })
})
