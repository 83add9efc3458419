/** A doctor row as `svc doctor` prints it: `WARN  public_base_url_precedence: ...`. */
export interface PublicBaseUrlPrecedenceRow {
  id: 'public_base_url_precedence'
  status: 'PASS' | 'WARN' | 'FAIL'
  detail: string
}

const norm = (v: string) => v.trim().replace(/\/+$/, '')

/**
 * The `public_base_url_precedence` check. `SVC_PUBLIC_BASE_URL` wins; `PUBLIC_BASE_URL` is a
 * fallback used only when the namespaced variable is unset. Both set and different → WARN, or
 * FAIL when `strict` (setting `strict_public_base_url` or `doctor --strict`). Neither set → no row.
 */
export function publicBaseUrlPrecedenceRow(
  env: NodeJS.ProcessEnv,
  options: { strict: boolean },
): PublicBaseUrlPrecedenceRow | null {
  const ours = env.SVC_PUBLIC_BASE_URL
  const legacy = env.PUBLIC_BASE_URL
  const id = 'public_base_url_precedence'
  const legacySet = legacy !== undefined && legacy.trim() !== ''
  if (ours === undefined) {
    return legacySet ? { id, status: 'PASS', detail: `using PUBLIC_BASE_URL fallback (${norm(legacy)})` } : null
  }
  if (!legacySet) {
    return ours.trim() === '' ? null : { id, status: 'PASS', detail: `SVC_PUBLIC_BASE_URL=${norm(ours)}` }
  }
  if (norm(ours) === norm(legacy)) {
    return { id, status: 'PASS', detail: `SVC_PUBLIC_BASE_URL and PUBLIC_BASE_URL agree (${norm(ours)})` }
  }
  const shown = ours.trim() === '' ? 'set but empty' : `=${norm(ours)}`
  return {
    id,
    status: options.strict ? 'FAIL' : 'WARN',
    detail:
      `SVC_PUBLIC_BASE_URL ${shown} and PUBLIC_BASE_URL=${norm(legacy)} differ; svc uses SVC_PUBLIC_BASE_URL ` +
      '(unset one of them so OAuth redirects go where you expect)',
  }
}
