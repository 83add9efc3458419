import { request } from 'undici'
import { z } from '../internal/zod.js'
import type { JWTVerifyGetKey } from 'jose'
import { SvcError } from '../errors.js'
import { ASYMMETRIC_ALGORITHMS } from './algorithms.js'
import { StandardClaims } from './claims.js'
import { loadJose } from './jose-loader.js'
import { fetchDiscovery, fetchDiscoverySync, type OidcDiscovery } from './oidc-discovery.js'
import { isGenericOIDCClient, kGenericOidc } from './oidc-brand.js'

export interface GenericOIDCClientConfig {
  /** The provider's issuer URL exactly as its discovery document states it. */
  issuer: string
  clientId: string
  clientSecret: string
  /** Timeout of each call to the provider (default 10 000 ms). */
  httpTimeoutMs?: number
  /** How the client authenticates at the token endpoint; default basic when the provider lists it. */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post'
}

export interface AuthorizationRequest {
  redirectUri: string
  scope: string
  state: string
  nonce: string
  codeChallenge: string
}

export interface CodeExchange {
  code: string
  redirectUri: string
  codeVerifier: string
}

/** The token endpoint's answer; only `id_token` is used by the BFF flow. */
export const TokenResponse = z.looseObject({
  id_token: z.string().optional(),
  access_token: z.string().optional(),
  token_type: z.string().optional(),
  expires_in: z.number().optional(),
})
export type TokenResponse = z.infer<typeof TokenResponse>

/**
 * What the BFF routes need from an identity provider. `GenericOIDCClient` implements it for any
 * standard OpenID Provider; a custom implementation must be registered with
 * `allowUnverifiedIdTokenForCustomOidc: true`, because svc cannot verify its id_token.
 */
export interface OIDCProvider {
  readonly clientId: string
  authorizationUrl(req: AuthorizationRequest): string
  exchangeCode(req: CodeExchange): Promise<TokenResponse>
}

export interface VerifyIdTokenOptions {
  nonce: string
  /** Expected `aud`; default the client id. */
  audience?: string
  leewaySeconds?: number
}

const DEFAULT_HTTP_TIMEOUT_MS = 10_000

/** A standard OpenID Connect client (authorization code + PKCE) that verifies id_tokens with the provider's JWKS. */
export class GenericOIDCClient implements OIDCProvider {
  readonly [kGenericOidc] = true
  readonly #config: Required<Omit<GenericOIDCClientConfig, 'tokenEndpointAuthMethod'>> &
    Pick<GenericOIDCClientConfig, 'tokenEndpointAuthMethod'>
  #discovery: OidcDiscovery | undefined
  #jwks: JWTVerifyGetKey | undefined

  constructor(config: GenericOIDCClientConfig) {
    for (const key of ['issuer', 'clientId', 'clientSecret'] as const) {
      if (typeof config[key] !== 'string' || config[key] === '') {
        throw new SvcError('SVC_ERR_AUTH_CONFIG', `GenericOIDCClient: ${key} is required (usually read from the environment)`)
      }
    }
    this.#config = { httpTimeoutMs: DEFAULT_HTTP_TIMEOUT_MS, ...config }
  }

  get clientId(): string {
    return this.#config.clientId
  }

  /** The issuer from discovery once loaded, else the configured one. */
  get issuer(): string {
    return this.#discovery?.issuer ?? this.#config.issuer.replace(/\/+$/, '')
  }

  get discovery(): OidcDiscovery {
    if (!this.#discovery) {
      throw new SvcError(
        'SVC_ERR_AUTH_CONFIG',
        'GenericOIDCClient: discovery is not loaded; call `await client.loadDiscovery()` (or client.loadDiscoverySync()) before attaching login',
      )
    }
    return this.#discovery
  }

  get isDiscoveryLoaded(): boolean {
    return this.#discovery !== undefined
  }

  /** Fetch `{issuer}/.well-known/openid-configuration`. Top-level `await` in the app module is fine. */
  async loadDiscovery(): Promise<this> {
    this.#discovery = await fetchDiscovery(this.#config.issuer, this.#config.httpTimeoutMs)
    return this
  }

  /** Same as `loadDiscovery()`, blocking: the fetch runs in a child process. */
  loadDiscoverySync(): this {
    this.#discovery = fetchDiscoverySync(this.#config.issuer, this.#config.httpTimeoutMs)
    return this
  }

  authorizationUrl(req: AuthorizationRequest): string {
    const url = new URL(this.discovery.authorization_endpoint)
    const params = {
      response_type: 'code',
      client_id: this.#config.clientId,
      redirect_uri: req.redirectUri,
      scope: req.scope,
      state: req.state,
      nonce: req.nonce,
      code_challenge: req.codeChallenge,
      code_challenge_method: 'S256',
    }
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
    return url.toString()
  }

  async exchangeCode(req: CodeExchange): Promise<TokenResponse> {
    const d = this.discovery
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code: req.code,
      redirect_uri: req.redirectUri,
      code_verifier: req.codeVerifier,
    })
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }
    const supported = d.token_endpoint_auth_methods_supported ?? ['client_secret_basic']
    const method = this.#config.tokenEndpointAuthMethod ?? (supported.includes('client_secret_basic') ? 'client_secret_basic' : 'client_secret_post')
    if (method === 'client_secret_basic') {
      // RFC 6749 §2.3.1: id and secret are form-encoded before base64.
      const enc = (v: string) => encodeURIComponent(v).replace(/%20/g, '+')
      headers.authorization = 'Basic ' + Buffer.from(`${enc(this.#config.clientId)}:${enc(this.#config.clientSecret)}`).toString('base64')
    } else {
      form.set('client_id', this.#config.clientId)
      form.set('client_secret', this.#config.clientSecret)
    }
    const timeout = this.#config.httpTimeoutMs
    let status: number
    let text: string
    try {
      const res = await request(d.token_endpoint, {
        method: 'POST',
        headers,
        body: form.toString(),
        headersTimeout: timeout,
        bodyTimeout: timeout,
        signal: AbortSignal.timeout(timeout),
      })
      status = res.statusCode
      text = await res.body.text()
    } catch (err) {
      throw new SvcError('SVC_ERR_AUTH_IDP', `token endpoint ${d.token_endpoint} failed: ${(err as Error).message}`, { cause: err })
    }
    let data: unknown
    try {
      data = JSON.parse(text)
    } catch {
      data = undefined
    }
    if (status < 200 || status > 299) {
      const e = data as { error?: unknown; error_description?: unknown } | undefined
      const reason = typeof e?.error === 'string' ? `${e.error}${typeof e.error_description === 'string' ? `: ${e.error_description}` : ''}` : 'no error code'
      throw new SvcError('SVC_ERR_AUTH_IDP', `token endpoint answered HTTP ${status} (${reason})`)
    }
    const parsed = TokenResponse.safeParse(data)
    if (!parsed.success) throw new SvcError('SVC_ERR_AUTH_IDP', 'token endpoint did not return a JSON object')
    return parsed.data
  }

  /** Verify an id_token: signature by the provider's JWKS, `iss`, `aud`, `exp`, `sub` and `nonce`. */
  async verifyIdToken(idToken: string, options: VerifyIdTokenOptions): Promise<StandardClaims> {
    const jose = await loadJose()
    const d = this.discovery
    this.#jwks ??= jose.createRemoteJWKSet(new URL(d.jwks_uri), { timeoutDuration: this.#config.httpTimeoutMs })
    const offered = d.id_token_signing_alg_values_supported
    const algorithms = (ASYMMETRIC_ALGORITHMS as readonly string[]).filter((a) => !offered || offered.includes(a))
    const { payload } = await jose.jwtVerify(idToken, this.#jwks, {
      issuer: d.issuer,
      audience: options.audience ?? this.#config.clientId,
      algorithms,
      clockTolerance: options.leewaySeconds ?? 0,
      requiredClaims: ['exp', 'iat', 'sub', 'nonce'],
    })
    if (payload.nonce !== options.nonce) throw new jose.errors.JWTClaimValidationFailed('nonce mismatch', payload, 'nonce', 'check_failed')
    return StandardClaims.parse(payload)
  }
}

export { isGenericOIDCClient }
