/**
 * Which environment variable gives `public_base_url` (rule shared with settings resolution:
 * `SVC_PUBLIC_BASE_URL` wins; plain `PUBLIC_BASE_URL` is a fallback only when it is unset).
 */
export type PublicBaseUrlSource =
  | { kind: 'none' }
  | { kind: 'namespaced'; value: string }
  | { kind: 'legacy'; value: string }
  | { kind: 'conflict'; namespaced: string; legacy: string }

export function publicBaseUrlSource(env: NodeJS.ProcessEnv): PublicBaseUrlSource {
  const namespaced = env.SVC_PUBLIC_BASE_URL
  const legacy = env.PUBLIC_BASE_URL
  if (namespaced !== undefined && legacy !== undefined && legacy !== '' && namespaced !== legacy) {
    return { kind: 'conflict', namespaced, legacy }
  }
  if (namespaced !== undefined) return { kind: 'namespaced', value: namespaced }
  if (legacy !== undefined && legacy !== '') return { kind: 'legacy', value: legacy }
  return { kind: 'none' }
}
