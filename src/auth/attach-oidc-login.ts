import type { FastifyInstance } from 'fastify'
import { SvcError } from '../errors.js'
import type { ResolvedSettings } from '../settings/schema.js'
import type { OIDCBFFConfig } from './oidc-bff-config.js'
import type { OidcBffStore } from './oidc-store.js'
import type { SessionRevocations } from './session-revocations.js'
import { registerOidcBffRoutes, type OidcLogin } from './oidc-bff-routes.js'
import type { OIDCProvider } from './oidc-client.js'

/** Overrides for `app.attachOidcLogin(client, options)`; everything else comes from settings. */
export type AttachOidcLoginOptions = Partial<Omit<OIDCBFFConfig, 'provider'>>

interface AppLike {
  readonly api: FastifyInstance
  readonly settings: Pick<ResolvedSettings, 'public_base_url' | 'oidc_bff_secret' | 'api_mount_path' | 'root_path' | 'workers' | 'redis_url'>
  /** The app's shared store (Redis when `redis_url` is set); the default for `options.store`. */
  readonly oidcStore?: OidcBffStore
  /** The app's record of sign-outs (shared through Redis with `redis_url`); the default for `options.revocations`. */
  readonly sessionRevocations?: SessionRevocations
}

/** The names of the logins attached to each app: one login per name. */
const attached = new WeakMap<object, Set<string>>()

/**
 * Register the OIDC BFF routes on an app, taking the public base URL from `public_base_url`
 * (SVC_PUBLIC_BASE_URL, then PUBLIC_BASE_URL) and the first-party secret from `oidc_bff_secret`
 * (SVC_OIDC_BFF_SECRET) unless `options` give them. Several logins need a `name` each; a named
 * login's routes default to `/auth/<name>/login`, `/callback` and `/exchange`.
 */
export function attachOidcLogin(app: AppLike, provider: OIDCProvider, options: AttachOidcLoginOptions = {}): OidcLogin {
  const name = options.name ?? 'default'
  const names = attached.get(app) ?? new Set<string>()
  if (names.has(name)) {
    throw new SvcError('SVC_ERR_AUTH_CONFIG', `attachOidcLogin() was already called on this app${name === 'default' ? '' : ` for "${name}"`}; give each login its own { name: '...' }`)
  }
  const firstPartySecret = options.firstPartySecret ?? app.settings.oidc_bff_secret
  if (!firstPartySecret) {
    throw new SvcError(
      'SVC_ERR_AUTH_CONFIG',
      'attachOidcLogin(): no first-party secret; set SVC_OIDC_BFF_SECRET to ≥ 32 random bytes or pass { firstPartySecret }',
    )
  }
  if (app.settings.workers > 1 && !options.store && !app.settings.redis_url) {
    process.emitWarning(
      `attachOidcLogin(): ${app.settings.workers} gateway workers each keep their own in-memory login store, so a ` +
        'callback or exchange served by another worker fails; set redis_url (SVC_REDIS_URL) or pass { store } (docs/auth.md)',
      'UserWarning',
    )
  }
  const named = name === 'default' ? {} : { loginPath: `/auth/${name}/login`, callbackPath: `/auth/${name}/callback`, exchangePath: `/auth/${name}/exchange` }
  const login = registerOidcBffRoutes(app.api, {
    publicBaseUrl: app.settings.public_base_url,
    apiMountPath: app.settings.api_mount_path,
    rootPath: app.settings.root_path,
    ...named,
    ...options,
    store: options.store ?? app.oidcStore,
    revocations: options.revocations ?? app.sessionRevocations,
    firstPartySecret,
    provider,
  })
  names.add(name)
  attached.set(app, names)
  return login
}
