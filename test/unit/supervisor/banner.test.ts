import { describe, expect, it } from 'vitest'
import { resolveSettings, optionsLayer } from '../../../src/settings/resolve.js'
import { listeningLine } from '../../../supervisor/banner.js'

describe('the listening line', () => {
  const settings = resolveSettings([optionsLayer({ workers: 2 })])

  it('prints a URL to open; on a loopback bind nothing more', () => {
    expect(listeningLine(settings, '127.0.0.1', 8000, 'http://127.0.0.1:41000')).toBe(
      'svc: listening on http://127.0.0.1:8000/ (api http://127.0.0.1:8000/api, ui sidecar http://127.0.0.1:41000, 2 gateway workers)\n',
    )
  })

  it('says when the port is open on every interface, not only the loopback URL it prints', () => {
    expect(listeningLine(settings, '0.0.0.0', 8080, 'http://127.0.0.1:41000')).toBe(
      'svc: listening on http://127.0.0.1:8080/ (api http://127.0.0.1:8080/api, ui sidecar http://127.0.0.1:41000, 2 gateway workers; bound to 0.0.0.0:8080, every interface)\n',
    )
    expect(listeningLine(settings, '::', 8080, 'http://127.0.0.1:41000')).toContain('http://[::1]:8080/ ')
    expect(listeningLine(settings, '::', 8080, 'http://127.0.0.1:41000')).toContain('; bound to [::]:8080, every interface)')
  })
})
