import type { DevTypeErrors } from '../../protocol.js'
import { CodeFrame, placeOf, useDismissable } from './dev-error.js'

/** Errors drawn in full; the rest are counted (the terminal lists them all). */
const SHOWN = 3

/**
 * `svc dev`'s type check found errors. Unlike a save that does not load, the code runs as saved,
 * so this is a panel at the foot of the page (amber, nothing dimmed, the page usable) rather than
 * a dialog over it. It clears by itself when a check finds none; "Dismiss" hides this result only.
 */
export function DevTypeErrorsOverlay({ report }: { report: DevTypeErrors | null }) {
  const [shown, dismiss] = useDismissable(report)
  if (!shown || report === null) return null
  const more = report.total - Math.min(SHOWN, report.errors.length)
  return (
    <div class="svc-dev-error-backdrop is-type">
      <section class="svc-dev-error is-type" role="status" aria-labelledby="svc-dev-type-title" data-testid="dev-type-errors">
        <header class="svc-dev-error-head">
          <div>
            <p class="svc-dev-error-eyebrow">svc dev · type check</p>
            <h2 id="svc-dev-type-title" class="svc-dev-error-title">
              {report.total === 1 ? 'Type error' : `${report.total} type errors`}
              <span class="svc-dev-error-runs"> · the code still runs</span>
            </h2>
          </div>
          <button type="button" class="svc-icon-button" aria-label="Dismiss the type errors" onClick={dismiss}>
            ×
          </button>
        </header>
        {report.errors.slice(0, SHOWN).map((e, i) => (
          <div key={i} class="svc-dev-type-error" data-testid="dev-type-error">
            <p class="svc-dev-error-cause" data-testid="dev-type-error-message">
              <span class="svc-dev-error-code">{e.code}</span> {e.message}
            </p>
            {placeOf(e) !== null ? (
              <p class="svc-dev-error-place" data-testid="dev-type-error-place">
                {placeOf(e)}
              </p>
            ) : null}
            {e.frame.length > 0 ? <CodeFrame at={e} testId="dev-type-error-frame" /> : null}
          </div>
        ))}
        <p class="svc-dev-error-note" data-testid="dev-type-errors-note">
          {more > 0 ? `${more} more in the terminal. ` : ''}
          The app runs as you saved it: svc dev checks types beside it and never holds a reload back. Save a fix and this clears by itself.
        </p>
      </section>
    </div>
  )
}
