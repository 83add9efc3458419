import { h } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import type { DevLoadError, DevTypeErrors } from '../../wire/protocol.js'
import type { DevOverlays as Drawn } from '../lazy/dev-overlays.js'

let loading: Promise<Drawn> | null = null

/**
 * `svc dev`'s overlays (lazy/dev-overlays.ts), loaded by the first error there is to show: a
 * page under `svc run` never has one, so it never loads them. A save that does not load says
 * more than the types of the code still running, so it alone shows while there is one.
 */
export function DevOverlays({ error, report, pageWaiting }: { error: DevLoadError | null; report: DevTypeErrors | null; pageWaiting: boolean }) {
  const [drawn, setDrawn] = useState<Drawn | null>(null)
  const wanted = error !== null || report !== null
  useEffect(() => {
    if (!wanted || drawn !== null) return
    // The stylesheet first, so the overlay never shows unstyled; a failed load is retried by the next error.
    loading ??= import('../lazy/dev-overlays.js').then((m) => m.styles.catch(() => undefined).then(() => m.devOverlays({ h, useState, useEffect })))
    loading.then(setDrawn, () => (loading = null))
  }, [wanted])
  if (drawn === null) return null
  return error !== null ? <drawn.DevErrorOverlay error={error} pageWaiting={pageWaiting} /> : <drawn.DevTypeErrorsOverlay report={report} />
}
