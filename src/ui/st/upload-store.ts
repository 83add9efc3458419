import { randomBytes } from 'node:crypto'

/** An upload the page has not picked up yet is dropped after this long. */
export const UPLOAD_PENDING_MS = 10 * 60_000
/** At most this many uploads wait for their page per session. */
export const MAX_PENDING_UPLOADS = 64

export interface PendingUpload {
  readonly name: string
  readonly type: string
  readonly bytes: Uint8Array
}

/**
 * Files a browser posted to the upload endpoint (`POST {root}/_stcore/upload`) for one session,
 * each under a random reference, until the `fileUploader` message naming it arrives and takes it
 * (`take`). Then the bytes live only in the widget's value. What is never taken is dropped after
 * `UPLOAD_PENDING_MS`; the bytes waiting are bounded per session.
 */
export class UploadStore {
  readonly #pending = new Map<string, { upload: PendingUpload; at: number }>()
  #bytes = 0

  /** Keep `upload`; its reference, or null when the session already holds `maxBytes` (0 = no bound) or too many. */
  add(upload: PendingUpload, maxBytes: number, now = Date.now()): string | null {
    this.#expire(now)
    if (this.#pending.size >= MAX_PENDING_UPLOADS) return null
    if (maxBytes > 0 && this.#bytes + upload.bytes.byteLength > maxBytes) return null
    const ref = randomBytes(18).toString('base64url')
    this.#pending.set(ref, { upload, at: now })
    this.#bytes += upload.bytes.byteLength
    return ref
  }

  /** The upload under `ref`, removed from the store; undefined when unknown or expired. */
  take(ref: string, now = Date.now()): PendingUpload | undefined {
    this.#expire(now)
    const entry = this.#pending.get(ref)
    if (!entry) return undefined
    this.#pending.delete(ref)
    this.#bytes -= entry.upload.bytes.byteLength
    return entry.upload
  }

  clear(): void {
    this.#pending.clear()
    this.#bytes = 0
  }

  #expire(now: number): void {
    for (const [ref, entry] of this.#pending) {
      if (now - entry.at < UPLOAD_PENDING_MS) break
      this.#pending.delete(ref)
      this.#bytes -= entry.upload.bytes.byteLength
    }
  }
}
