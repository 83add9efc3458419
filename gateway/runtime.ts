import type { HealthSource } from '../src/health.js'

/**
 * What one gateway knows about the process it serves: the sidecar URL (from the child
 * environment, then from the supervisor's `upstream` messages), whether it drains, and how full
 * the upstream pool is. The gateway owns it; the app's health routes and the internal routes
 * only read it.
 */
export class GatewayRuntime implements HealthSource {
  #uiUpstream: string
  draining = false
  /** Why the upstream pool counts as saturated for readyz, or null; set once the proxy exists. */
  upstreamSaturation: () => string | null = () => null
  /** Requests served (HTTP requests and WebSocket upgrades), for `svc status` and `gateway_max_requests`. */
  requests = 0
  /** `onRequestLimit` runs once, when `requests` reaches this. */
  requestLimit = Infinity
  onRequestLimit: () => void = () => {}

  /** One request arrived. */
  countRequest(): void {
    if (++this.requests === this.requestLimit) this.onRequestLimit()
  }

  constructor(upstream: string) {
    this.#uiUpstream = normalizeUpstream(upstream)
  }

  get uiUpstream(): string {
    return this.#uiUpstream
  }

  set uiUpstream(url: string) {
    this.#uiUpstream = normalizeUpstream(url)
  }
}

export function normalizeUpstream(url: string): string {
  let v = url.trim()
  while (v.endsWith('/')) v = v.slice(0, -1)
  return v
}
