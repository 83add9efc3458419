import { randomBytes } from 'node:crypto'
import type { St } from './st-types.js'

/**
 * URL-session continuity: keep an opaque id in the page URL (`?svc_sid=...`) that keys a
 * server-side store, so a new page session (a new tab, or a reload after the old session expired)
 * can get its state back without cookies. The id is a bearer secret for that state: HTTPS only, short TTLs, never put
 * tokens in it. Gateway access logs redact the parameter.
 *
 * Ids are the server's: a page session writes only under an id `ensureUrlSession` minted for it.
 * An id that arrives in the URL from anywhere else (a reload after the page session ended, a
 * bookmark, a link someone sent) is replaced by a fresh one; the state stored under it, if the
 * server issued it, is carried over. So a link with a chosen id never collects the state of the
 * browser that opens it, on any replica.
 */

export const DEFAULT_URL_SESSION_PARAM = 'svc_sid'

export type SessionData = Record<string, unknown>

export interface SessionStore {
  get(id: string): SessionData | undefined | Promise<SessionData | undefined>
  /** `ttlSeconds` of 0 or less: no expiry for this entry. */
  set(id: string, data: SessionData, ttlSeconds?: number): void | Promise<void>
  delete(id: string): void | Promise<void>
}

const TRUTHY = /^(1|true|yes|on)$/i

/**
 * Off when `SVC_DISABLE_URL_SESSION` is set, and under `SVC_TESTS` unless
 * `SVC_FORCE_URL_SESSION_IN_TESTS` is set too.
 */
export function urlSessionEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if (TRUTHY.test(env.SVC_DISABLE_URL_SESSION ?? '')) return false
  if (TRUTHY.test(env.SVC_TESTS ?? '') && !TRUTHY.test(env.SVC_FORCE_URL_SESSION_IN_TESTS ?? '')) return false
  return true
}

/** The query key: the option, else the `url_session_query_param` setting (env), else `svc_sid`. */
export function urlSessionParam(param?: string, env: NodeJS.ProcessEnv = process.env): string {
  return param ?? (env.SVC_URL_SESSION_QUERY_PARAM || DEFAULT_URL_SESSION_PARAM)
}

/** 256 random bits, URL-safe. */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url')
}

export interface UrlSessionOptions {
  param?: string
  ttlSeconds?: number
}

/** The id minted for this page session, kept on its state under a symbol: no page code, snapshot or persist sees it. */
const kOwnId = Symbol.for('svc.urlSession.id')
/** What `newSessionId` mints; anything else in the URL was never issued and is not looked up. */
const ISSUED_ID = /^[A-Za-z0-9_-]{43}$/

function ownId(st: St): string | undefined {
  return (st.sessionState as Record<symbol, string | undefined>)[kOwnId]
}

/** The URL's id when it is the one minted for this page session, else null. */
function currentId(st: St, param: string): string | null {
  const id = st.queryParams.get(param)
  return id !== undefined && id !== '' && id === ownId(st) ? id : null
}

/**
 * Make sure the URL carries this page session's id. The id minted for this session keeps its
 * blob (`initial` merged in). Any other id is replaced by a new one (put in the URL): the blob of
 * an id the server issued is copied to it, an unknown id brings nothing. Null when disabled.
 */
export async function ensureUrlSession(st: St, store: SessionStore, options: UrlSessionOptions & { initial?: SessionData } = {}): Promise<string | null> {
  if (!urlSessionEnabled()) return null
  const param = urlSessionParam(options.param)
  const own = currentId(st, param)
  if (own !== null) {
    if (options.initial) await store.set(own, { ...((await store.get(own)) ?? {}), ...options.initial }, options.ttlSeconds)
    return own
  }
  const presented = st.queryParams.get(param)
  const carried = presented !== undefined && ISSUED_ID.test(presented) ? await store.get(presented) : undefined
  const id = newSessionId()
  await store.set(id, { ...carried, ...options.initial }, options.ttlSeconds)
  ;(st.sessionState as Record<symbol, string>)[kOwnId] = id
  st.queryParams.set(param, id)
  return id
}

/**
 * Copy the stored blob of this page session's URL id into `st.sessionState`. With `merge`
 * (default) keys already in the session win; `merge: false` overwrites them. Returns the id, or
 * null (also when the URL's id was not minted for this session: call `ensureUrlSession` first).
 */
export async function hydrateUrlSession(st: St, store: SessionStore, options: { param?: string; merge?: boolean } = {}): Promise<string | null> {
  if (!urlSessionEnabled()) return null
  const id = currentId(st, urlSessionParam(options.param))
  if (id === null) return null
  const data = await store.get(id)
  if (!data) return id
  for (const [k, v] of Object.entries(data)) {
    if (options.merge === false || !(k in st.sessionState)) st.sessionState[k] = v
  }
  return id
}

/**
 * Save `st.sessionState` (keys starting with `__` skipped) under this page session's URL id.
 * State that is not JSON-serialisable is not written (the id is still returned). Null, and
 * nothing written, when the URL's id was not minted for this session.
 */
export async function persistUrlSession(st: St, store: SessionStore, options: UrlSessionOptions = {}): Promise<string | null> {
  if (!urlSessionEnabled()) return null
  const id = currentId(st, urlSessionParam(options.param))
  if (id === null) return null
  const snapshot: SessionData = {}
  for (const [k, v] of Object.entries(st.sessionState)) if (!k.startsWith('__')) snapshot[k] = v
  let data: SessionData
  try {
    data = JSON.parse(JSON.stringify(snapshot)) as SessionData
  } catch {
    return id
  }
  await store.set(id, data, options.ttlSeconds)
  return id
}

/**
 * A single-process store. Expired entries go lazily; over `maxEntries` the oldest insertion goes
 * first. For several replicas use a shared store implementing `SessionStore`.
 */
export class InMemorySessionStore implements SessionStore {
  readonly #entries = new Map<string, { data: SessionData; expires: number }>()
  readonly #maxEntries: number
  readonly #defaultTtlSeconds: number
  readonly #now: () => number

  constructor(options: { maxEntries?: number; defaultTtlSeconds?: number; now?: () => number } = {}) {
    this.#maxEntries = options.maxEntries ?? 5000
    this.#defaultTtlSeconds = options.defaultTtlSeconds ?? 86_400
    this.#now = options.now ?? Date.now
  }

  get(id: string): SessionData | undefined {
    const e = this.#entries.get(id)
    if (!e) return undefined
    if (e.expires <= this.#now()) {
      this.#entries.delete(id)
      return undefined
    }
    return structuredClone(e.data)
  }

  set(id: string, data: SessionData, ttlSeconds: number = this.#defaultTtlSeconds): void {
    this.#entries.delete(id)
    this.#entries.set(id, { data: structuredClone(data), expires: ttlSeconds > 0 ? this.#now() + ttlSeconds * 1000 : Infinity })
    while (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value as string)
  }

  delete(id: string): void {
    this.#entries.delete(id)
  }

  get size(): number {
    return this.#entries.size
  }
}
