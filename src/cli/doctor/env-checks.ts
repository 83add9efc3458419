import { pass, fail, warn, type CheckRow, type DoctorContext, type SettingsContext } from './types.js'
import { publicBaseUrlPrecedenceRow } from '../../auth/public-base-url.js'

/** `SVC_INTERNAL_API_BASE`: svc sets it for its children; set by hand it must point at the API mount. */
export const internalApiBase = (ctx: SettingsContext): CheckRow => {
  const name = 'SVC_INTERNAL_API_BASE'
  const raw = ctx.env.SVC_INTERNAL_API_BASE
  if (raw === undefined || raw === '') return pass(name, 'unset (normal: svc sets it for the UI sidecar and the gateway workers)')
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return fail(name, `${JSON.stringify(raw)} is not a valid absolute URL; expected e.g. http://127.0.0.1:8000${ctx.settings.api_mount_path}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return fail(name, `${JSON.stringify(raw)} is not an http(s) URL`)
  }
  const path = url.pathname.replace(/\/+$/, '')
  if (path !== ctx.settings.api_mount_path) {
    return warn(name, `path '${path}' should match api_mount_path '${ctx.settings.api_mount_path}'`)
  }
  return pass(name, 'set and matches api_mount_path')
}

/** Rule owned by the auth helpers (`src/auth/public-base-url.ts`); doctor only renders the row. */
export const publicBaseUrlPrecedence = (ctx: DoctorContext): CheckRow | null => {
  const strict = ctx.strict || ctx.settings?.strict_public_base_url === true
  const row = publicBaseUrlPrecedenceRow(ctx.env, { strict })
  return row === null ? null : { name: row.id, status: row.status, detail: row.detail }
}
