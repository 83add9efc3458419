import { afterEach, describe, expect, it } from 'vitest'
import { startSvc, stopAllTrees } from '../helpers/svc-process.js'

describe('banners on stderr', () => {
  afterEach(stopAllTrees)

  it('svc workbench trusts proxy headers and prints where things are', async () => {
    const svc = await startSvc({ command: 'workbench', args: ['--root-path', '/lab'] })
    const err = svc.stderr.join('\n')
    expect(err).toContain('[svc] Workbench mode: X-Forwarded-* headers are trusted')
    expect(err).toContain('[svc] App title: Basic')
    expect(err).toContain(`[svc] Open in browser (loopback): http://127.0.0.1:${svc.port}/lab/`)
    expect(err).toContain(`[svc] API liveness: http://127.0.0.1:${svc.port}/lab/api/healthz`)
    expect(err).toContain(`[svc] API docs: http://127.0.0.1:${svc.port}/lab/api/docs`)
    const res = await fetch(`${svc.url}/lab/page`, { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'public.example' } })
    const seen = (await res.json()) as { headers: Record<string, string> }
    expect(seen.headers['x-forwarded-proto']).toBe('https')
    expect(seen.headers['x-forwarded-host']).toBe('public.example')
  })

  it('svc run --debug prints the [svc-debug] line with the derived internal API base', async () => {
    const svc = await startSvc({ args: ['--debug'] })
    const line = svc.stderr.find((l) => l.startsWith('[svc-debug]'))!
    expect(line).toBe(`[svc-debug] internal_api_base=http://127.0.0.1:${svc.port}/api api_mount_path=/api root_path="" trust_proxy=false`)
  })

  it('without trust, a client X-Forwarded-Proto never reaches the sidecar', async () => {
    const svc = await startSvc()
    const res = await fetch(`${svc.url}/page`, { headers: { 'x-forwarded-proto': 'https' } })
    const seen = (await res.json()) as { headers: Record<string, string> }
    expect(seen.headers['x-forwarded-proto']).toBe('http')
  })
})
