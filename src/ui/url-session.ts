import { randomBytes } from 'node:crypto'
import type { St } from './st-types.js'

/**
 * URL-session continuity: keep an opaque id in the page URL (`?svc_sid=...`) that keys a
 * server-side store, so a full browser reload (a new WebSocket session) can get its state back
 * without cookies. The id is a bearer secret for that state: HTTPS only, short TTLs, never put
 * tokens in it. Gateway access logs redact the parameter.
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

/**
 * Make sure the URL carries a session id: an existing id gets `initial` merged into its blob;
 * otherwise a new id is minted, `initial` stored, and the id put in the URL. Null when disabled.
 */
export async function ensureUrlSession(st: St, store: SessionStore, options: UrlSessionOptions & { initial?: SessionData } = {}): Promise<string | null> {
  if (!urlSessionEnabled()) return null
  const param = urlSessionParam(options.param)
  const existing = st.queryParams.get(param)
  if (existing) {
    if (options.initial) await store.set(existing, { ...((await store.get(existing)) ?? {}), ...options.initial }, options.ttlSeconds)
    return existing
  }
  const id = newSessionId()
  await store.set(id, { ...options.initial }, options.ttlSeconds)
  st.queryParams.set(param, id)
  return id
}

/**
 * Copy the stored blob of the URL's session id into `st.sessionState`. With `merge` (default)
 * keys already in the session win; `merge: false` overwrites them. Returns the id, or null.
 */
export async function hydrateUrlSession(st: St, store: SessionStore, options: { param?: string; merge?: boolean } = {}): Promise<string | null> {
  if (!urlSessionEnabled()) return null
  const id = st.queryParams.get(urlSessionParam(options.param))
  if (!id) return null
  const data = await store.get(id)
  if (!data) return id
  for (const [k, v] of Object.entries(data)) {
    if (options.merge === false || !(k in st.sessionState)) st.sessionState[k] = v
  }
  return id
}

/**
 * Save `st.sessionState` (keys starting with `__` skipped) under the URL's session id. State
 * that is not JSON-serialisable is not written (the id is still returned).
 */
export async function persistUrlSession(st: St, store: SessionStore, options: UrlSessionOptions = {}): Promise<string | null> {
  if (!urlSessionEnabled()) return null
  const id = st.queryParams.get(urlSessionParam(options.param))
  if (!id) return null
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
