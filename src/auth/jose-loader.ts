import { createRequire } from 'node:module'
import { SvcError } from '../errors.js'

/** The jose module namespace, loaded on first use (jose is an optional peer dependency). */
export type Jose = typeof import('jose')

const INSTALL_HINT = 'JWT and OIDC support in svc/auth needs the optional peer dependency jose: run `npm install jose`'

let loading: Promise<Jose> | undefined

/**
 * Import jose once; a missing install becomes `SVC_ERR_AUTH_MISSING_DEPENDENCY` naming the fix.
 * A failed attempt is not cached, so installing jose and retrying works without a restart.
 */
export function loadJose(): Promise<Jose> {
  loading ??= import('jose').catch((err: unknown) => {
    loading = undefined
    throw new SvcError('SVC_ERR_AUTH_MISSING_DEPENDENCY', `${INSTALL_HINT} (${(err as Error).message})`, { cause: err })
  })
  return loading
}

/** True when jose can be resolved from svc's install; for `svc doctor` (row `svc_auth_extra`). */
export function isJoseAvailable(): boolean {
  try {
    createRequire(import.meta.url).resolve('jose')
    return true
  } catch {
    return false
  }
}
