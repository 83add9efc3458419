import { SvcError } from '../../errors.js'
import { checkedValue, storedText, type Output, type ZodSchema } from './checked-value.js'
import { DurationSchema, durationMs, type Duration } from '../duration.js'
import { sessionRef } from '../session-ref.js'
import { COOKIE_TICKET_TTL_MS, type CookieKeys } from './cookie-keys.js'

/** Browsers keep at most this many bytes per cookie (name, value and attributes). */
export const MAX_COOKIE_BYTES = 4096
/** Cookies one session may have waiting for the browser to apply them. */
export const MAX_PENDING_COOKIES = 50
/** RFC 6265 cookie-name token. */
const COOKIE_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,256}$/

/** How `st.cookies.set` writes a cookie. */
export interface CookieOptions {
  /** Hidden from the page's scripts (default true). */
  httpOnly?: boolean
  /** Sent over HTTPS only (default: when the page was loaded over HTTPS, as the gateway saw it). */
  secure?: boolean
  /** Default `lax`; `none` needs `secure`. */
  sameSite?: 'lax' | 'strict' | 'none'
  /** Default: the app's root path (`/` without one). */
  path?: string
  /** How long the browser keeps it: seconds, or a duration like `'30d'`; absent: until the browser closes. */
  maxAge?: Duration
  /** Sign it with `cookie_secret`: `get(name, { signed: true })` then returns it only unchanged. */
  signed?: boolean
}

export interface CookieReadOptions<S extends ZodSchema | undefined = undefined> {
  /** Only a value this app signed (`set(…, { signed: true })`); anything else reads as absent. */
  signed?: boolean
  /** Check the value (JSON, or the plain string) with this schema; a value it refuses reads as absent. */
  schema?: S
}

export interface CookieJarOptions {
  /** Null where no page server runs the page (then writes are refused). */
  keys: CookieKeys | null
  /** The app's root path: the default cookie path. */
  basePath: string
  sessionId: string
  /** The cookies of the socket's handshake. */
  handshake: () => Readonly<Record<string, string>>
  /** The page was loaded over HTTPS (the default of `secure`). */
  https: () => boolean
  /** The app's sign-in cookie, which pages may not write. */
  reserved: () => string | null
  /** Hand a sealed ticket to the browser. */
  deliver: (ticket: string) => void
  /** A value that did not pass its check was read as absent: say why in the log. */
  invalid: (name: string, reason: string) => void
}

/**
 * `st.cookies`: the cookies of the page socket's handshake, the writes of this session on top,
 * and writes that reach the browser as a sealed ticket (`CookieKeys`) it posts to
 * `{root}/_stcore/cookie`. What the browser sends back is never trusted: signed reads verify the
 * signature, typed reads go through the page's schema.
 */
export class CookieJar {
  readonly #opts: CookieJarOptions
  /** Values this session wrote (decoded, as a handshake would read them), null for deleted. */
  readonly #written = new Map<string, string | null>()
  #pending: string[] = []
  #flushing = false

  constructor(options: CookieJarOptions) {
    this.#opts = options
  }

  /** A new socket: its handshake has what the browser holds now. */
  reset(): void {
    this.#written.clear()
  }

  get(name: string): string | undefined
  get<S extends ZodSchema | undefined>(name: string, options: CookieReadOptions<S>): (S extends ZodSchema ? Output<S> : string) | undefined
  get(name: string, options: CookieReadOptions<ZodSchema | undefined> = {}): unknown {
    const where = `st.cookies.get(${JSON.stringify(name)})`
    let raw = this.#written.has(name) ? (this.#written.get(name) ?? undefined) : this.#opts.handshake()[name]
    if (raw === undefined) return undefined
    if (options.signed) {
      const keys = this.#signer(where)
      const value = keys.verify(name, raw)
      if (value === null) {
        this.#opts.invalid(name, 'its signature does not verify (changed, or not signed by this app)')
        return undefined
      }
      raw = value
    }
    if (!options.schema) return raw
    const checked = checkedValue(raw, options.schema, where)
    if (checked.ok) return checked.value
    this.#opts.invalid(name, checked.reason)
    return undefined
  }

  /** Every cookie as the page sees it (unsigned values as they are). */
  toObject(): Record<string, string> {
    const out: Record<string, string> = { ...this.#opts.handshake() }
    for (const [name, value] of this.#written) {
      if (value === null) delete out[name]
      else out[name] = value
    }
    return out
  }

  set(name: string, value: unknown, options: CookieOptions = {}): void {
    const where = `st.cookies.set(${JSON.stringify(name)})`
    this.#checkName(name, where)
    let text = storedText(value, where)
    if (options.signed) text = this.#signer(where).sign(name, text)
    const attributes = this.#attributes(name, options, where)
    if (options.maxAge !== undefined) {
      const parsed = DurationSchema.safeParse(options.maxAge)
      if (!parsed.success) throw new SvcError('SVC_ERR_UI_BAD_CALL', `${where}: maxAge ${JSON.stringify(options.maxAge)} is not valid; pass seconds (e.g. 3600) or a duration like "30d"`)
      attributes.push(`Max-Age=${Math.floor(durationMs(parsed.data) / 1000)}`)
    }
    const line = `${name}=${encodeURIComponent(text)}; ${attributes.join('; ')}`
    const bytes = Buffer.byteLength(line)
    if (bytes > MAX_COOKIE_BYTES) {
      throw new SvcError('SVC_ERR_UI_STORAGE', `${where}: the cookie would be ${bytes} bytes with its attributes; browsers keep at most ${MAX_COOKIE_BYTES}. Keep a key in it and the data in st.userStorage or your own store`)
    }
    this.#written.set(name, text)
    this.#queue(line, where)
  }

  delete(name: string, options: Pick<CookieOptions, 'path' | 'secure' | 'sameSite'> = {}): void {
    const where = `st.cookies.delete(${JSON.stringify(name)})`
    this.#checkName(name, where)
    this.#written.set(name, null)
    this.#queue(`${name}=; ${this.#attributes(name, { ...options, httpOnly: true }, where).join('; ')}; Max-Age=0`, where)
  }

  #signer(where: string): CookieKeys {
    const keys = this.#opts.keys
    if (!keys?.canSign) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `${where}: signed cookies need the cookie_secret setting (SVC_COOKIE_SECRET, at least 32 random bytes), the same on every replica; see docs/configuration.md`)
    }
    return keys
  }

  #checkName(name: string, where: string): void {
    if (typeof name !== 'string' || !COOKIE_NAME.test(name)) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `${where}: a cookie name is 1-256 letters, digits or !#$%&'*+-.^_\`|~ (no spaces, "=", ";" or ",")`)
    }
    if (name === this.#opts.reserved()) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `${where}: "${name}" is the sign-in cookie of the app's login; use st.login() and st.logout()`)
    }
  }

  #attributes(name: string, options: CookieOptions, where: string): string[] {
    const path = options.path ?? (this.#opts.basePath || '/')
    if (!path.startsWith('/') || /[;\s]/.test(path)) throw new SvcError('SVC_ERR_UI_BAD_CALL', `${where}: path ${JSON.stringify(path)} must start with "/" and hold no ";" or space`)
    const sameSite = options.sameSite ?? 'lax'
    if (!['lax', 'strict', 'none'].includes(sameSite)) throw new SvcError('SVC_ERR_UI_BAD_CALL', `${where}: sameSite is "lax", "strict" or "none", not ${JSON.stringify(sameSite)}`)
    const prefixed = name.startsWith('__Secure-') || name.startsWith('__Host-')
    const secure = options.secure ?? (prefixed || sameSite === 'none' || this.#opts.https())
    if (!secure && (prefixed || sameSite === 'none')) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `${where}: ${prefixed ? `a "${name.split('-')[0]}-" cookie` : 'sameSite "none"'} needs secure: true (browsers refuse it otherwise)`)
    }
    if (name.startsWith('__Host-') && path !== '/') throw new SvcError('SVC_ERR_UI_BAD_CALL', `${where}: a "__Host-" cookie needs path "/"`)
    const out = [`Path=${path}`, `SameSite=${sameSite[0]!.toUpperCase()}${sameSite.slice(1)}`]
    if (options.httpOnly ?? true) out.push('HttpOnly')
    if (secure) out.push('Secure')
    return out
  }

  /** Writes of one turn go out together, as one ticket. */
  #queue(line: string, where: string): void {
    if (this.#opts.keys === null) throw new SvcError('SVC_ERR_UI_BAD_CALL', `${where}: cookies can be written only by pages the page server runs`)
    if (this.#pending.length >= MAX_PENDING_COOKIES) {
      throw new SvcError('SVC_ERR_UI_STORAGE', `${where}: this page wrote more than ${MAX_PENDING_COOKIES} cookies at once; write fewer (keep data in st.userStorage or st.localStorage)`)
    }
    this.#pending.push(line)
    if (this.#flushing) return
    this.#flushing = true
    queueMicrotask(() => {
      this.#flushing = false
      const cookies = this.#pending
      this.#pending = []
      const ticket = this.#opts.keys!.seal({ session: sessionRef(this.#opts.sessionId), expires: Date.now() + COOKIE_TICKET_TTL_MS, cookies })
      this.#opts.deliver(ticket)
    })
  }
}
