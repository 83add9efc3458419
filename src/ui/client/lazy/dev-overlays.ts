import type { ComponentChildren, FunctionComponent, h as preactH } from 'preact'
import type { useEffect as preactUseEffect, useState as preactUseState } from 'preact/hooks'
import type { DevLoadError, DevTypeErrors } from '../../wire/protocol.js'
import cssHref from './dev-overlays.css?url'
import { loadStylesheet } from './stylesheet.js'

/**
 * `svc dev`'s overlays: a save that did not load, and the type check's errors. Only `svc dev`
 * shows them, so they are a chunk of their own rather than bytes of every page's `app.js`. They
 * draw with the app's Preact, passed in (`devOverlays`): importing Preact here would move it out
 * of `app.js` into a chunk every page loads beside it.
 */
export const styles = loadStylesheet(new URL(cssHref, import.meta.url).href)

/** The app's Preact: `h` and the hooks the overlays use. */
export interface PreactKit {
  h: typeof preactH
  useState: typeof preactUseState
  useEffect: typeof preactUseEffect
}

export interface DevOverlays {
  DevErrorOverlay: FunctionComponent<{ error: DevLoadError | null; pageWaiting: boolean }>
  DevTypeErrorsOverlay: FunctionComponent<{ report: DevTypeErrors | null }>
}

/** Errors drawn in full; the rest are counted (the terminal lists them all). */
const SHOWN = 3

interface Located {
  frame: { line: number; text: string }[]
  file: string | null
  line: number | null
  column: number | null
}

export function devOverlays({ h, useState, useEffect }: PreactKit): DevOverlays {
  /**
   * Shown until dismissed (the × or Escape), which hides this `value` only: the next one (another
   * error, another check's result) shows again.
   */
  function useDismissable<T>(value: T | null): [shown: boolean, dismiss: () => void] {
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

  /** The dialog's frame: eyebrow, title and ×, then the body. */
  function panel(type: boolean, attrs: Record<string, string>, eyebrow: string, title: ComponentChildren, dismissLabel: string, dismiss: () => void, body: ComponentChildren): ComponentChildren {
    const is = type ? ' is-type' : ''
    return h(
      'div',
      { class: `svc-dev-error-backdrop${is}` },
      h(
        'section',
        { class: `svc-dev-error${is}`, ...attrs },
        h(
          'header',
          { class: 'svc-dev-error-head' },
          h('div', null, h('p', { class: 'svc-dev-error-eyebrow' }, eyebrow), h('h2', { id: attrs['aria-labelledby'], class: 'svc-dev-error-title' }, title)),
          h('button', { type: 'button', class: 'svc-icon-button', 'aria-label': dismissLabel, onClick: dismiss }, '×'),
        ),
        body,
      ),
    )
  }

  /** Where an error is (`app.ts:5:24`, the file alone, or nothing) and its source lines. */
  function located(at: Located, testIds: [place: string, frame: string]): ComponentChildren {
    const place = placeOf(at)
    return [place !== null ? h('p', { class: 'svc-dev-error-place', 'data-testid': testIds[0] }, place) : null, at.frame.length > 0 ? codeFrame(at, testIds[1]) : null]
  }

  /** The source lines around an error, its line marked and a caret under its column. */
  function codeFrame(at: Located, testId: string): ComponentChildren {
    const width = String(at.frame.at(-1)?.line ?? 0).length
    return h(
      'pre',
      { class: 'svc-dev-error-frame', 'data-testid': testId },
      at.frame.map((l) => {
        const here = l.line === at.line
        const gutter = `${here ? '>' : ' '} ${String(l.line).padStart(width)} | `
        // Tabs stay tabs, so the caret lines up under the column whatever their width.
        const caret = here && at.column !== null ? h('span', { 'aria-hidden': 'true' }, ' '.repeat(gutter.length - 2) + '| ', h('span', { class: 'svc-dev-error-caret' }, l.text.slice(0, at.column - 1).replace(/[^\t]/g, ' ') + '^'), '\n') : null
        return h('span', { key: l.line, class: here ? 'svc-dev-error-line is-at' : 'svc-dev-error-line' }, gutter, l.text, '\n', caret)
      }),
    )
  }

  /**
   * `svc dev --reload`: the last save of the app did not load. Shown over the page (which keeps
   * running the previous version) until a save loads again; "Dismiss" hides this error only.
   * `pageWaiting`: this tab never had a session (no page thread runs a version that loaded), so
   * only the API keeps the last good code and the page opens with the next good save.
   */
  function DevErrorOverlay({ error, pageWaiting }: { error: DevLoadError | null; pageWaiting: boolean }): ComponentChildren {
    const [shown, dismiss] = useDismissable(error)
    if (!shown || error === null) return null
    return panel(
      false,
      { role: 'alertdialog', 'aria-labelledby': 'svc-dev-error-title', 'aria-describedby': 'svc-dev-error-cause', 'data-testid': 'dev-error' },
      'svc dev · reload failed',
      'The app did not load',
      'Dismiss this error',
      dismiss,
      [
        h('p', { id: 'svc-dev-error-cause', class: 'svc-dev-error-cause', 'data-testid': 'dev-error-cause' }, error.cause),
        located(error, ['dev-error-place', 'dev-error-frame']),
        h('p', { class: 'svc-dev-error-fix' }, sentence(error.fix)),
        h(
          'p',
          { class: 'svc-dev-error-note', 'data-testid': 'dev-error-note' },
          pageWaiting
            ? 'The API keeps running the last version that loaded; this page opens once a save loads. Save a fix and this message clears by itself.'
            : 'This page and the API keep running the last version that loaded. Save a fix and this message clears by itself.',
        ),
      ],
    )
  }

  /**
   * `svc dev`'s type check found errors. Unlike a save that does not load, the code runs as saved,
   * so this is a panel at the foot of the page (amber, nothing dimmed, the page usable) rather than
   * a dialog over it. It clears by itself when a check finds none; "Dismiss" hides this result only.
   */
  function DevTypeErrorsOverlay({ report }: { report: DevTypeErrors | null }): ComponentChildren {
    const [shown, dismiss] = useDismissable(report)
    if (!shown || report === null) return null
    const more = report.total - Math.min(SHOWN, report.errors.length)
    return panel(
      true,
      { role: 'status', 'aria-labelledby': 'svc-dev-type-title', 'data-testid': 'dev-type-errors' },
      'svc dev · type check',
      [report.total === 1 ? 'Type error' : `${report.total} type errors`, h('span', { class: 'svc-dev-error-runs' }, ' · the code still runs')],
      'Dismiss the type errors',
      dismiss,
      [
        report.errors
          .slice(0, SHOWN)
          .map((e, i) =>
            h(
              'div',
              { key: i, class: 'svc-dev-type-error', 'data-testid': 'dev-type-error' },
              h('p', { class: 'svc-dev-error-cause', 'data-testid': 'dev-type-error-message' }, h('span', { class: 'svc-dev-error-code' }, e.code), ' ', e.message),
              located(e, ['dev-type-error-place', 'dev-type-error-frame']),
            ),
          ),
        h(
          'p',
          { class: 'svc-dev-error-note', 'data-testid': 'dev-type-errors-note' },
          more > 0 ? `${more} more in the terminal. ` : '',
          'The app runs as you saved it: svc dev checks types beside it and never holds a reload back. Save a fix and this clears by itself.',
        ),
      ],
    )
  }

  return { DevErrorOverlay, DevTypeErrorsOverlay }
}

/** Where an error is: `app.ts:5:24`, the file alone, or null. */
function placeOf(at: { file: string | null; line: number | null; column: number | null }): string | null {
  return at.file === null ? null : at.line === null ? at.file : `${at.file}:${at.line}:${at.column ?? 1}`
}

/** `install it (npm install x)` → `Install it (npm install x).` */
function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1) + '.'
}
