import { useEffect, useState } from 'preact/hooks'
import type { DevLoadError } from '../../protocol.js'

/**
 * `svc dev --reload`: the last save of the app did not load. Shown over the page (which keeps
 * running the previous version) until a save loads again; "Dismiss" hides this error only.
 * `pageWaiting`: this tab never had a session (no page thread runs a version that loaded), so
 * only the API keeps the last good code and the page opens with the next good save.
 */
export function DevErrorOverlay({ error, pageWaiting = false }: { error: DevLoadError | null; pageWaiting?: boolean }) {
  const [shown, dismiss] = useDismissable(error)
  if (!shown || error === null) return null
  const place = placeOf(error)
  return (
    <div class="svc-dev-error-backdrop">
      <section class="svc-dev-error" role="alertdialog" aria-labelledby="svc-dev-error-title" aria-describedby="svc-dev-error-cause" data-testid="dev-error">
        <header class="svc-dev-error-head">
          <div>
            <p class="svc-dev-error-eyebrow">svc dev · reload failed</p>
            <h2 id="svc-dev-error-title" class="svc-dev-error-title">
              The app did not load
            </h2>
          </div>
          <button type="button" class="svc-icon-button" aria-label="Dismiss this error" onClick={dismiss}>
            ×
          </button>
        </header>
        <p id="svc-dev-error-cause" class="svc-dev-error-cause" data-testid="dev-error-cause">
          {error.cause}
        </p>
        {place !== null ? (
          <p class="svc-dev-error-place" data-testid="dev-error-place">
            {place}
          </p>
        ) : null}
        {error.frame.length > 0 ? <CodeFrame at={error} /> : null}
        <p class="svc-dev-error-fix">{sentence(error.fix)}</p>
        <p class="svc-dev-error-note" data-testid="dev-error-note">
          {pageWaiting
            ? 'The API keeps running the last version that loaded; this page opens once a save loads. Save a fix and this message clears by itself.'
            : 'This page and the API keep running the last version that loaded. Save a fix and this message clears by itself.'}
        </p>
      </section>
    </div>
  )
}

/**
 * Shown until dismissed (the × or Escape), which hides this `value` only: the next one (another
 * error, another check's result) shows again.
 */
export function useDismissable<T>(value: T | null): [shown: boolean, dismiss: () => void] {
  const [dismissed, setDismissed] = useState<T | null>(null)
  const shown = value !== null && value !== dismissed
  useEffect(() => {
    if (!shown) return
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setDismissed(value)
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [shown, value])
  return [shown, () => setDismissed(value)]
}

/** Where an error is: `app.ts:5:24`, the file alone, or null. */
export function placeOf(at: { file: string | null; line: number | null; column: number | null }): string | null {
  return at.file === null ? null : at.line === null ? at.file : `${at.file}:${at.line}:${at.column ?? 1}`
}

/** The source lines around an error, its line marked and a caret under its column. */
export function CodeFrame({ at, testId = 'dev-error-frame' }: { at: { frame: { line: number; text: string }[]; line: number | null; column: number | null }; testId?: string }) {
  const width = String(at.frame.at(-1)?.line ?? 0).length
  return (
    <pre class="svc-dev-error-frame" data-testid={testId}>
      {at.frame.map((l) => {
        const here = l.line === at.line
        const gutter = `${here ? '>' : ' '} ${String(l.line).padStart(width)} | `
        return (
          <span key={l.line} class={here ? 'svc-dev-error-line is-at' : 'svc-dev-error-line'}>
            {gutter}
            {l.text}
            {'\n'}
            {here && at.column !== null ? (
              <span aria-hidden="true">
                {' '.repeat(gutter.length - 2) + '| '}
                {/* Tabs stay tabs, so the caret lines up under the column whatever their width. */}
                <span class="svc-dev-error-caret">{l.text.slice(0, at.column - 1).replace(/[^\t]/g, ' ') + '^'}</span>
                {'\n'}
              </span>
            ) : null}
          </span>
        )
      })}
    </pre>
  )
}

/** `install it (npm install x)` → `Install it (npm install x).` */
function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1) + '.'
}
