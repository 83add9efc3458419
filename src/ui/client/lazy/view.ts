/**
 * The contract between `app.js` and a lazily loaded element chunk (`app.js` imports its types
 * only, so it pulls no code into `app.js`). A chunk exports a `MountView`: it draws into a host element the
 * shell made for the node, without Preact, so it shares no module with `app.js` and splitting
 * the bundle never moves code out of `app.js` into extra files a first visit must load.
 */
export interface ViewHost {
  /** Public root path ('' or '/tools'). */
  readonly basePath: string
  /** The app title (alt texts). */
  readonly title: string
  /** `st.map`'s basemap styles from the page config, or null for the defaults. */
  readonly mapStyle: { light: string; dark: string } | null
  /**
   * Send this node's widget value to the server (a rerun follows), or to its form when the element
   * asks (`formValue`). `trigger`: the value is news for one run even when it repeats (a chat submit).
   */
  sendValue(value: unknown, trigger?: boolean): void
  /** Send a file to the page server's upload endpoint; resolves with the reference a widget value carries (issue #36's capture inputs). */
  upload(file: File): Promise<string>
  /** The URL policy of the page client (`src/ui/wire/url-policy.ts`): the URL to use, or undefined when it must not be loaded. */
  safeUrl(value: string, kind: 'link' | 'image'): string | undefined
}

export interface View<P> {
  /** A rerun sent new props (often equal ones: compare before redrawing). */
  update(props: P): void
  destroy(): void
}

/** Resolves when the first draw is done (or failed: the promise rejects with the message to show). */
export type MountView<P> = (el: HTMLElement, props: P, host: ViewHost) => { view: View<P>; ready: Promise<void> }

/**
 * Reruns resend equal props as new objects: the returned check is true (and remembers `next`)
 * only when `next` differs from the props it saw last, starting from `initial`.
 */
export function propsChanged<P>(initial: P): (next: P) => boolean {
  let signature = JSON.stringify(initial)
  return (next) => {
    const nextSignature = JSON.stringify(next)
    if (nextSignature === signature) return false
    signature = nextSignature
    return true
  }
}
