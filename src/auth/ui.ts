import { SvcError } from '../errors.js'
import { ApiClient } from '../client/api-client.js'

/** Session key of the short-lived first-party access token (the only token a page keeps). */
export const DEFAULT_SESSION_KEY = 'svc_access_token'
/** Query parameter the OIDC callback puts the one-time code in. */
export const DEFAULT_AUTH_CODE_QUERY_KEY = 'auth_code'
/** `POST {api}/auth/exchange`, relative to the API base. */
export const DEFAULT_EXCHANGE_PATH = '/auth/exchange'

/**
 * The parts of a page's `st` these helpers use, written out so that auth needs nothing of the
 * page runtime (which imports these helpers for `st.user` and `st.logout`); any `St` fits.
 */
export interface UiAuthSt {
  readonly sessionState: Record<string, unknown>
  readonly queryParams: { get(name: string): string | undefined; delete(name: string): void }
}

export interface SessionKeyOptions {
  sessionKey?: string
}

export interface ExchangeOptions extends SessionKeyOptions {
  exchangePath?: string
  queryKey?: string
}

/**
 * If the page URL carries `?auth_code=`, remove it from the URL, exchange it server-side
 * (`POST {api}/auth/exchange`) and keep the access token in `st.sessionState[sessionKey]`.
 * Resolves to the new token, or undefined when the URL has no code. A refused code (expired,
 * already used) throws `SVC_ERR_AUTH_UNAUTHORIZED`.
 */
export async function exchangeAuthCodeFromQuery(st: UiAuthSt, client: ApiClient, options: ExchangeOptions = {}): Promise<string | undefined> {
  const queryKey = options.queryKey ?? DEFAULT_AUTH_CODE_QUERY_KEY
  const code = st.queryParams.get(queryKey)
  if (code === undefined || code === '') return undefined
  // Drop it first: the code is single use, and it should not linger in history or bookmarks.
  st.queryParams.delete(queryKey)
  const res = await client.post(options.exchangePath ?? DEFAULT_EXCHANGE_PATH, { json: { auth_code: code } })
  const body = (await res.json().catch(() => undefined)) as { access_token?: unknown; message?: unknown } | undefined
  if (!res.ok) {
    const why = typeof body?.message === 'string' ? ` (${body.message})` : ''
    throw new SvcError('SVC_ERR_AUTH_UNAUTHORIZED', `auth_code exchange failed: HTTP ${res.status}${why}; sign in again`)
  }
  if (typeof body?.access_token !== 'string' || body.access_token === '') {
    throw new SvcError('SVC_ERR_AUTH_IDP', 'auth_code exchange answered without an access_token')
  }
  st.sessionState[options.sessionKey ?? DEFAULT_SESSION_KEY] = body.access_token
  return body.access_token
}

/**
 * `{ authorization: 'Bearer <token>' }` from the session, or `{}` when there is no token or it
 * has expired (an expired token is removed, so the page can offer the login again).
 */
export function bearerHeadersFromSession(st: Pick<UiAuthSt, 'sessionState'>, options: SessionKeyOptions = {}): Record<string, string> {
  const token = accessTokenFromSession(st, options)
  return token === undefined ? {} : { authorization: `Bearer ${token}` }
}

/** The session's access token, if present and not expired. */
export function accessTokenFromSession(st: Pick<UiAuthSt, 'sessionState'>, options: SessionKeyOptions = {}): string | undefined {
  const key = options.sessionKey ?? DEFAULT_SESSION_KEY
  const token: unknown = st.sessionState[key]
  if (typeof token !== 'string' || token === '') return undefined
  if (isExpired(token)) {
    delete st.sessionState[key]
    return undefined
  }
  return token
}

/** Forget the access token (log out of the page session). */
export function clearAccessToken(st: Pick<UiAuthSt, 'sessionState'>, options: SessionKeyOptions = {}): void {
  delete st.sessionState[options.sessionKey ?? DEFAULT_SESSION_KEY]
}

/**
 * The client a page should use: exchanges `?auth_code=` first when present, then returns
 * `client.withBearer(token)` when the session has a token, else `client` unchanged (anonymous).
 * `client` defaults to a new ApiClient on `SVC_INTERNAL_API_BASE`; pass the page's injected one.
 */
export async function prepareUiApiClient(st: UiAuthSt, client: ApiClient = new ApiClient(), options: ExchangeOptions = {}): Promise<ApiClient> {
  await exchangeAuthCodeFromQuery(st, client, options)
  const token = accessTokenFromSession(st, options)
  return token === undefined ? client : client.withBearer(token)
}

// Reads `exp` without verifying: only to avoid sending a token the API will refuse anyway.
function isExpired(token: string, nowSeconds = Date.now() / 1000): boolean {
  const payload = token.split('.')[1]
  if (!payload) return false
  try {
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp
    return typeof exp === 'number' && exp <= nowSeconds
  } catch {
    return false
  }
}
