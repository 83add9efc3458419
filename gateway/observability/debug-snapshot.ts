import { normalizeForwardAllowlist } from '../../src/settings/forward-headers.js'
import { SETTING_KEYS, isSecretSetting, type ResolvedSettings } from '../../src/settings/schema.js'

/** One row of `recent_dispatches`. */
export interface DebugDispatchRow {
  request_id: string
  dispatch: string
  path: string
}

/** How many recent dispatches the debug snapshot keeps. */
export const DEBUG_RING_CAPACITY = 32

/** The last `capacity` dispatches of this gateway worker, oldest first; fixed memory. */
export class DebugRing {
  readonly #rows: (DebugDispatchRow | undefined)[]
  #next = 0
  #size = 0

  constructor(readonly capacity: number = DEBUG_RING_CAPACITY) {
    this.#rows = new Array<DebugDispatchRow | undefined>(capacity)
  }

  push(row: DebugDispatchRow): void {
    this.#rows[this.#next] = row
    this.#next = (this.#next + 1) % this.capacity
    if (this.#size < this.capacity) this.#size++
  }

  /** A copy, oldest first. */
  rows(): DebugDispatchRow[] {
    const out: DebugDispatchRow[] = []
    const start = (this.#next - this.#size + this.capacity) % this.capacity
    for (let i = 0; i < this.#size; i++) out.push(this.#rows[(start + i) % this.capacity]!)
    return out
  }
}

export const SECRET_PLACEHOLDER = '[REDACTED]'

/** Every setting, with non-empty secret ones replaced by `[REDACTED]`. */
export function redactedSettings(settings: ResolvedSettings): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key of SETTING_KEYS) {
    const value = settings[key]
    out[key] = isSecretSetting(key) && value !== '' && value !== null ? SECRET_PLACEHOLDER : value
  }
  return out
}

export interface DebugSnapshot {
  svc_debug: true
  gateway: { api_mount_path: string; root_path: string; gateway_forward_rejected_names: string[] }
  settings: Record<string, unknown>
  ui_upstream: 'set' | 'unset'
  recent_dispatches: DebugDispatchRow[]
}

/** The body of `GET /__svc/debug` (debug mode only). */
export function buildDebugSnapshot(settings: ResolvedSettings, ring: DebugRing, uiUpstream: string): DebugSnapshot {
  return {
    svc_debug: true,
    gateway: {
      api_mount_path: settings.api_mount_path,
      root_path: settings.root_path,
      gateway_forward_rejected_names: normalizeForwardAllowlist(settings.gateway_forward_client_headers).rejected,
    },
    settings: redactedSettings(settings),
    ui_upstream: uiUpstream.trim() === '' ? 'unset' : 'set',
    recent_dispatches: ring.rows(),
  }
}
