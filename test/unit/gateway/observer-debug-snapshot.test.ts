import { describe, expect, it } from 'vitest'
import { resolveSettings } from '../../../src/settings/resolve.js'
import { SETTING_KEYS, isSecretSetting } from '../../../src/settings/schema.js'
import { DEBUG_RING_CAPACITY, DebugRing, buildDebugSnapshot, redactedSettings } from '../../../gateway/observability/debug-snapshot.js'

describe('DebugRing', () => {
  it('keeps the last 32 rows, oldest first', () => {
    const ring = new DebugRing()
    expect(ring.rows()).toEqual([])
    for (let i = 0; i < 40; i++) ring.push({ request_id: `r${i}`, dispatch: i % 2 ? 'ui' : 'api', path: `/p${i}` })
    const rows = ring.rows()
    expect(rows).toHaveLength(DEBUG_RING_CAPACITY)
    expect(rows[0]!.request_id).toBe('r8')
    expect(rows.at(-1)!.request_id).toBe('r39')
  })

  it('returns a copy', () => {
    const ring = new DebugRing(2)
    ring.push({ request_id: 'a', dispatch: 'api', path: '/' })
    ring.rows().pop()
    expect(ring.rows()).toHaveLength(1)
  })
})

describe('buildDebugSnapshot', () => {
  it('has the documented keys, every setting, and secrets redacted only when non-empty', () => {
    const s = resolveSettings([{ source: () => ({ kind: 'options' }), values: { debug: true, oidc_bff_secret: 'S3CRET' } }])
    const snap = buildDebugSnapshot(s, new DebugRing(), '')
    expect(Object.keys(snap)).toEqual(['svc_debug', 'gateway', 'settings', 'ui_upstream', 'recent_dispatches'])
    expect(snap.ui_upstream).toBe('unset')
    expect(Object.keys(snap.settings).sort()).toEqual([...SETTING_KEYS].sort())
    expect(JSON.stringify(snap)).not.toContain('S3CRET')
    const secrets = SETTING_KEYS.filter(isSecretSetting)
    expect(secrets).toContain('oidc_bff_secret')
    expect(redactedSettings(s).oidc_bff_secret).toBe('[REDACTED]')
    expect(redactedSettings(s).jwt_hs256_secret).toBe('')
  })
})
