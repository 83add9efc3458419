/**
 * CSS of a lazy chunk. esbuild writes the CSS a lazily imported module imports into a file of
 * its own that nothing loads; the build lists it in dist/client/manifest.json (`chunkStyles`,
 * keyed by the chunk's source path under src/ui/client without extension, e.g.
 * `maps-lazy/render`) and the shell passes the URLs in its config. A lazy element calls
 * `loadChunkStyle(config, 'maps-lazy/render')` next to its `import()`: a `<link>` (allowed by the
 * page CSP's `style-src 'self'`, unlike an inline style), added once, resolved when it has loaded
 * or failed (the element then draws unstyled rather than not at all).
 */
import type { ClientConfig } from './config.js'

const loading = new Map<string, Promise<void>>()

export function loadChunkStyle(config: Pick<ClientConfig, 'chunkStyles'>, chunk: string, doc: Document = document): Promise<void> {
  const href = config.chunkStyles[chunk]
  if (href === undefined) return Promise.resolve()
  let done = loading.get(href)
  if (done === undefined) {
    const link = doc.createElement('link')
    link.rel = 'stylesheet'
    link.href = href
    done = new Promise<void>((resolve) => {
      link.addEventListener('load', () => resolve(), { once: true })
      link.addEventListener('error', () => resolve(), { once: true })
    })
    doc.head.appendChild(link)
    loading.set(href, done)
  }
  return done
}
