import { describe, expect, it, onTestFinished, vi } from 'vitest'
import type { SnapshotCall } from '../../../src/ui/server/page-thread-messages.js'
import { LocalSnapshotStore, MainThreadSnapshots } from '../../../src/ui/server/thread-snapshots.js'

describe('session snapshots kept by the page server main thread', () => {
  it('a page thread sets, reads, refreshes and deletes them through the main thread', async () => {
    const store = new LocalSnapshotStore()
    onTestFinished(() => store.close())
    // The message channel between the two, synchronous here.
    let thread: MainThreadSnapshots | null = null
    thread = new MainThreadSnapshots((call: SnapshotCall) => store.apply(call, (id, value) => thread!.answer(id, value)))
    await thread.set('page-session:a', 'encoded-a', 60)
    expect(await thread.get('page-session:a')).toBe('encoded-a')
    expect(await thread.get('page-session:b')).toBeNull()
    await thread.del('page-session:a')
    expect(await thread.get('page-session:a')).toBeNull()
  })

  it('expire with their TTL, which expire() moves', () => {
    vi.useFakeTimers({ now: 0 })
    onTestFinished(() => {
      vi.useRealTimers()
    })
    const store = new LocalSnapshotStore()
    onTestFinished(() => store.close())
    const none = (): void => undefined
    store.apply({ op: 'set', key: 'k', value: 'v', ttlSeconds: 10 }, none)
    vi.setSystemTime(9_000)
    store.apply({ op: 'expire', key: 'k', ttlSeconds: 10 }, none)
    vi.setSystemTime(18_000)
    expect(store.get('k')).toBe('v')
    vi.setSystemTime(19_001)
    expect(store.get('k')).toBeNull()
  })
})
