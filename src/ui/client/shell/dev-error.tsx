import { useEffect, useState } from 'preact/hooks'
import type { DevLoadError } from '../../protocol.js'

/**
 * `svc dev --reload`: the last save of the app did not load. Shown over the page (which keeps
 * running the previous version) until a save loads again; "Dismiss" hides this error only.
 * `pageWaiting`: this tab never had a session (no page thread runs a version that loaded), so
 * only the API keeps the last good code and the page opens with the next good save.
 */
export function DevErrorOverlay({ error, pageWaiting = false }: { error: DevLoadError | null; pageWaiting?: boolean }) {
  const [dismissed, setDismissed] = useState<DevLoadError | null>(null)
  const shown = error !== null && error !== dismissed
  useEffect(() => {
    if (!shown) return
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setDismissed(error)
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [shown, error])
  if (!shown) return null
  const place = error.file === null ? null : error.line === null ? error.file : `${error.file}:${error.line}:${error.column ?? 1}`
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
          <button type="button" class="svc-icon-button" aria-label="Dismiss this error" onClick={() => setDismissed(error)}>
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
        {error.frame.length > 0 ? <CodeFrame error={error} /> : null}
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

function CodeFrame({ error }: { error: DevLoadError }) {
  const width = String(error.frame.at(-1)?.line ?? 0).length
  return (
    <pre class="svc-dev-error-frame" data-testid="dev-error-frame">
      {error.frame.map((l) => {
        const at = l.line === error.line
        const gutter = `${at ? '>' : ' '} ${String(l.line).padStart(width)} | `
        return (
          <span key={l.line} class={at ? 'svc-dev-error-line is-at' : 'svc-dev-error-line'}>
            {gutter}
            {l.text}
            {'\n'}
            {at && error.column !== null ? (
              <span aria-hidden="true">
                {' '.repeat(gutter.length - 2) + '| '}
                {/* Tabs stay tabs, so the caret lines up under the column whatever their width. */}
                <span class="svc-dev-error-caret">{l.text.slice(0, error.column - 1).replace(/[^\t]/g, ' ') + '^'}</span>
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
