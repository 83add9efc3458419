/**
 * Lazy chunks bring their own stylesheet (imported with `?url`, see scripts/build-client.mjs): a
 * `<link>` added once per file, so pages that never load the chunk never load its CSS either.
 * A `<link>` to our own origin needs no `'unsafe-inline'` in a Content-Security-Policy.
 */
const loaded = new Map<string, Promise<void>>()

/** `href` relative to the calling chunk: pass `new URL(cssHref, import.meta.url).href`. */
export function loadStylesheet(href: string): Promise<void> {
  let done = loaded.get(href)
  if (!done) {
    done = new Promise<void>((resolve, reject) => {
      const link = document.createElement('link')
      link.rel = 'stylesheet'
      link.href = href
      link.onload = () => resolve()
      link.onerror = () => reject(new Error(`could not load the stylesheet ${href}`))
      document.head.append(link)
    })
    loaded.set(href, done)
  }
  return done
}
