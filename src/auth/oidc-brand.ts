import type { GenericOIDCClient } from './oidc-client.js'

/**
 * The brand of a GenericOIDCClient, apart from the client itself: the login routes test for it,
 * and an app that never makes a client does not load the client's HTTP and process libraries.
 */
export const kGenericOidc = Symbol.for('svc.auth.generic-oidc-client')

export function isGenericOIDCClient(value: unknown): value is GenericOIDCClient {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kGenericOidc] === true
}
