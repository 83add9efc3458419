export { JWTBearer, TokenRejected } from './jwt-bearer.js'
export type { JWTBearerOptions, JWTBearerConfig, JwtSettings } from './jwt-bearer.js'
export { RequireScopes, RequireRoles } from './require-claims.js'
export type { ClaimGuard, RequireClaimOptions } from './require-claims.js'
export { StandardClaims, getClaims, findClaims } from './claims.js'
export { AUTH_DETAIL } from './auth-reply.js'
export type { AuthErrorBody } from './auth-reply.js'
export { issueAccessToken, DEFAULT_ACCESS_TOKEN_TTL_S } from './issue-token.js'
export type { IssueAccessTokenOptions } from './issue-token.js'
export { HMAC_ALGORITHMS, ASYMMETRIC_ALGORITHMS, MIN_HMAC_SECRET_BYTES } from './algorithms.js'
export { isJoseAvailable } from './jose-loader.js'
export { GenericOIDCClient, isGenericOIDCClient, TokenResponse } from './oidc-client.js'
export type {
  GenericOIDCClientConfig,
  OIDCProvider,
  AuthorizationRequest,
  CodeExchange,
  VerifyIdTokenOptions,
} from './oidc-client.js'
export { OidcDiscovery } from './oidc-discovery.js'
export { registerOidcBffRoutes } from './oidc-bff-routes.js'
export type { OidcLogin } from './oidc-bff-routes.js'
export { OIDC_BFF_DEFAULTS } from './oidc-bff-config.js'
export type { OIDCBFFConfig, ResolvedOIDCBFFConfig } from './oidc-bff-config.js'
export { attachOidcLogin } from './attach-oidc-login.js'
export type { AttachOidcLoginOptions } from './attach-oidc-login.js'
export { MemoryOidcBffStore } from './oidc-store.js'
export type { OidcBffStore, MemoryOidcBffStoreOptions } from './oidc-store.js'
export { applyCors, corsOrigins } from './cors.js'
export type { CorsSettings } from './cors.js'
export { publicBaseUrlPrecedenceRow } from './public-base-url.js'
export type { PublicBaseUrlPrecedenceRow } from './public-base-url.js'
