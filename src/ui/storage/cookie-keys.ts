import assert from 'node:assert'
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto'

/** How long a cookie ticket may wait for the browser to hand it in. */
export const COOKIE_TICKET_TTL_MS = 60_000

const IV_BYTES = 12
const TAG_BYTES = 16

/** What a ticket carries: the `Set-Cookie` lines, the session it is for (its ref), and when it expires. */
export interface CookieTicket {
  session: string
  expires: number
  cookies: string[]
}

function derive(material: Uint8Array, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), `svc ${purpose}`, 32))
}

/**
 * The keys of the cookies a page writes, derived from `cookie_secret`:
 * - signing (`st.cookies.set(..., { signed: true })`): HMAC-SHA256 over the name and the value,
 *   so a signed value cannot be forged nor moved to another cookie; only with a secret, since a
 *   signature must still verify after a restart and on every replica;
 * - tickets: the page socket cannot set a cookie (only an HTTP answer can, and only one can set
 *   an HttpOnly cookie), so the page hands the browser a ticket, AES-256-GCM-sealed (a script on
 *   the page cannot read the HttpOnly value inside), which the browser posts to
 *   `{root}/_stcore/cookie` and gets the `Set-Cookie` answer. Without a secret the ticket key is
 *   random per page server (then a ticket works only on the replica that made it).
 */
export class CookieKeys {
  readonly #sign: Buffer | null
  readonly #seal: Buffer

  /** `material`: `cookie_secret`, or '' with `fallback`, the page server's random ticket key (base64). */
  constructor(secret: string, fallback: string) {
    const material = secret !== '' ? Buffer.from(secret) : Buffer.from(fallback, 'base64')
    this.#sign = secret !== '' ? derive(material, 'signed cookie') : null
    this.#seal = derive(material, 'cookie ticket')
  }

  /** A fresh random ticket key for a page server without `cookie_secret`, shared with its page threads. */
  static randomFallback(): string {
    return randomBytes(32).toString('base64')
  }

  get canSign(): boolean {
    return this.#sign !== null
  }

  /** `value.signature` for cookie `name`; throws without a secret (the caller checks `canSign`). */
  sign(name: string, value: string): string {
    return `${value}.${this.#mac(name, value)}`
  }

  /** The value of a signed cookie, or null when it is not one this app signed for `name`. */
  verify(name: string, signed: string): string | null {
    if (this.#sign === null) return null
    const dot = signed.lastIndexOf('.')
    if (dot < 0) return null
    const value = signed.slice(0, dot)
    const given = Buffer.from(signed.slice(dot + 1))
    const expected = Buffer.from(this.#mac(name, value))
    return given.length === expected.length && timingSafeEqual(given, expected) ? value : null
  }

  seal(ticket: CookieTicket): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.#seal, iv)
    const body = Buffer.concat([cipher.update(JSON.stringify(ticket), 'utf8'), cipher.final()])
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')
  }

  /** The ticket inside `sealed`, or null when it was not sealed with this key (or was changed). */
  open(sealed: string): CookieTicket | null {
    const raw = Buffer.from(sealed, 'base64url')
    if (raw.length <= IV_BYTES + TAG_BYTES) return null
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#seal, raw.subarray(0, IV_BYTES))
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES))
      const text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8')
      return JSON.parse(text) as CookieTicket
    } catch {
      return null
    }
  }

  #mac(name: string, value: string): string {
    assert(this.#sign !== null, 'bug: signing a cookie without cookie_secret (callers check canSign)')
    return createHmac('sha256', this.#sign).update(`${name}=${value}`).digest('base64url')
  }
}
