import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { Svc } from '../../../src/app.js'
import type { PageServerApp } from '../../../src/ui/page-app.js'

/**
 * Issue #24.4: the page server, its page threads and the probe child see the app through
 * `PageServerApp` only: no symbol of the app object, shared state and settings included.
 */
describe('the page side through PageServerApp', () => {
  it.each(['src/ui/server/sidecar.ts', 'src/ui/server/page-thread-main.ts', 'probe/probe.ts'])('%s reads no symbol of the app object', (file) => {
    const source = readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8')
    expect(source).not.toMatch(/internal\/symbols\.js/)
    expect(source).not.toMatch(/app\[k[A-Z]/)
  })

  it('Svc carries the shared Redis as pageSnapshotStore (null without redis_url)', async () => {
    const plain: PageServerApp = new Svc({ title: 'plain' })
    expect(plain.pageSnapshotStore).toBeNull()
    const shared = new Svc({ title: 'shared', redis_url: 'redis://127.0.0.1:1/0' })
    const store = shared.pageSnapshotStore
    expect(store).not.toBeNull()
    expect(typeof store?.probe).toBe('function')
    await shared.api.close()
  })
})
