import type { SvcStateV2 } from '../../state/state-file.js'

/** A valid state file body; override what a test cares about. */
export function sampleState(overrides: Partial<SvcStateV2> = {}): SvcStateV2 {
  const now = new Date().toISOString()
  return {
    version: 2,
    tree_id: '0123456789abcdef0123456789abcdef',
    supervisor_pid: 1234,
    ui_upstream: 'http://127.0.0.1:54321',
    gateway_host: '127.0.0.1',
    gateway_port: 8000,
    workers: [{ pid: 1235, started_at: now }],
    sidecar_pid: 1236,
    started_at: now,
    target: 'app.ts:app',
    ...overrides,
  }
}
