import { describe, expect, it } from 'vitest'
import { MAX_PENDING_UPLOADS, UPLOAD_PENDING_MS, UploadStore } from '../../../src/ui/st/upload-store.js'

const file = (n: number) => ({ name: `f${n}.bin`, type: 'application/octet-stream', bytes: new Uint8Array(n) })

describe('UploadStore (uploads a session holds until its fileUploader takes them)', () => {
  it('hands an upload out once, by its reference', () => {
    const store = new UploadStore()
    const ref = store.add(file(3), 0)!
    expect(ref).toMatch(/^[A-Za-z0-9_-]{24}$/)
    expect(store.take(ref)?.bytes.byteLength).toBe(3)
    expect(store.take(ref)).toBeUndefined()
    expect(store.take('no-such-ref')).toBeUndefined()
  })

  it('holds at most maxBytes waiting, and at most MAX_PENDING_UPLOADS files', () => {
    const store = new UploadStore()
    const a = store.add(file(60), 100)!
    expect(store.add(file(50), 100)).toBeNull()
    store.take(a)
    expect(store.add(file(50), 100)).not.toBeNull()
    const many = new UploadStore()
    for (let i = 0; i < MAX_PENDING_UPLOADS; i++) expect(many.add(file(1), 0)).not.toBeNull()
    expect(many.add(file(1), 0)).toBeNull()
  })

  it('drops what was not taken within UPLOAD_PENDING_MS', () => {
    const store = new UploadStore()
    const old = store.add(file(10), 15, 0)!
    expect(store.add(file(10), 15, 1)).toBeNull()
    // Expired: its bytes no longer count, and it cannot be taken.
    expect(store.add(file(10), 15, UPLOAD_PENDING_MS)).not.toBeNull()
    expect(store.take(old, UPLOAD_PENDING_MS)).toBeUndefined()
  })
})
