import type { SvcState } from '../../state/state-file.js'

/** A valid state file body; override what a test cares about. */
export function sampleState(overrides: Partial<SvcState> = {}): SvcState {
  const now = new Date().toISOString()
  return {
    version: 1,
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
