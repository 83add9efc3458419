/**
 * Mutable facts about the process an app is served in: set by the gateway worker (upstream
 * from IPC or `SVC_UI_UPSTREAM`, drain state) and read by the health routes.
 */
export class RuntimeState {
  uiUpstream: string
  draining = false
  /** Why the upstream pool counts as saturated for readyz, or null; set by the gateway worker. */
  upstreamSaturation: () => string | null = () => null

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.uiUpstream = normalizeUpstream(env.SVC_UI_UPSTREAM ?? '')
  }
}

export function normalizeUpstream(url: string): string {
  let v = url.trim()
  while (v.endsWith('/')) v = v.slice(0, -1)
  return v
}
