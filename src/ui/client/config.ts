/*
 * Note to the page server (src/ui/server): the HTML shell carries the client config as
 *   <script type="application/json" id="svc-config">{"basePath":"/tools","title":"My app"}</script>
 * (JSON, not an inline script, so a strict CSP without 'unsafe-inline' still works; escape `<` as
 * `\u003c` in the JSON). `basePath` is the public root path without a trailing slash ('' at the
 * root). `window.__SVC__` with the same shape is accepted too.
 */

export interface ClientConfig {
  /** Public root path, no trailing slash: '' or '/tools'. Every URL the client builds starts with it. */
  basePath: string
  /** App title shown in the sidebar header. */
  title: string
  /** Basemap styles of `st.map` when the app sets them (`ui_map_style_url`); null: the map chunk's defaults. */
  mapStyle: { light: string; dark: string } | null
  /** Stylesheet URLs of lazy chunks that import CSS, by chunk (see chunk-styles.ts); usually empty. */
  chunkStyles: Record<string, string>
}

declare global {
  interface Window {
    __SVC__?: Partial<ClientConfig>
  }
}

export function normalizeBasePath(raw: unknown): string {
  if (typeof raw !== 'string') return ''
  const trimmed = raw.trim().replace(/\/+$/, '')
  if (trimmed === '') return ''
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`
}

export function readConfig(doc: Document = document): ClientConfig {
  let raw: Partial<ClientConfig> = window.__SVC__ ?? {}
  const tag = doc.getElementById('svc-config')
  if (tag?.textContent) {
    try {
      raw = { ...raw, ...(JSON.parse(tag.textContent) as Partial<ClientConfig>) }
    } catch {
      // A broken tag falls back to defaults: the page still works at the root.
    }
  }
  const style = raw.mapStyle
  return {
    basePath: normalizeBasePath(raw.basePath),
    title: typeof raw.title === 'string' && raw.title !== '' ? raw.title : doc.title || 'svc',
    mapStyle: typeof style?.light === 'string' && typeof style.dark === 'string' ? { light: style.light, dark: style.dark } : null,
    chunkStyles: stringRecord(raw.chunkStyles),
  }
}

function stringRecord(raw: unknown): Record<string, string> {
  if (typeof raw !== 'object' || raw === null) return {}
  return Object.fromEntries(Object.entries(raw).filter((e): e is [string, string] => typeof e[1] === 'string'))
}
