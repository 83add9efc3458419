import { COMPONENT_PROTOCOL_VERSION, isComponentMessage, type ComponentTheme, type FromComponent, type ToComponent } from './protocol.js'

/**
 * `svc/component`: the component side of svc's custom components (docs/pages.md#custom-components).
 * Import it in the component's own bundle (it has no dependencies and runs only in the browser):
 *
 * ```ts
 * import { onRender, ready, setValue } from 'svc/component'
 *
 * onRender<{ max: number }>(({ args, theme, value }) => draw(args.max, value))
 * button.onclick = () => setValue(3)
 * ready()   // listen first, then announce: the page answers with a render
 * ```
 *
 * `ready()` also keeps the iframe as tall as the document (a ResizeObserver) and, unless told
 * otherwise, puts the page's theme on this document: `--svc-*` CSS variables and `color-scheme`.
 */

export { COMPONENT_PROTOCOL_VERSION }
export type { ComponentTheme }

/** What `onRender` listeners receive: on `ready()` and whenever args, theme, `disabled` or the value change. */
export interface RenderEvent<A = Record<string, unknown>> {
  args: A
  theme: ComponentTheme
  /** The page passed `disabled: true`: show the component read-only. */
  disabled: boolean
  /** The current value (the page's `default`, or what this component last set), as JSON. */
  value: unknown
}

export interface ReadyOptions {
  /** Keep the iframe as tall as this document (default true). */
  autoHeight?: boolean
  /** Set the page's `--svc-*` variables and `color-scheme` on this document on each render (default true). */
  applyTheme?: boolean
}

type Listener = (event: RenderEvent<never>) => void

const listeners = new Set<Listener>()
let last: RenderEvent<unknown> | null = null
let applyTheme = true
let lastHeight = -1
let observer: ResizeObserver | null = null
let listening = false

function post(message: FromComponent): void {
  // The host is the embedding page; its origin is unknown to a sandboxed (opaque-origin) document.
  window.parent.postMessage(message, '*')
}

function onMessage(event: MessageEvent): void {
  if (event.source !== window.parent || !isComponentMessage(event.data)) return
  const m = event.data as ToComponent
  if (m.v !== COMPONENT_PROTOCOL_VERSION || m.type !== 'render') return
  last = { args: m.args, theme: m.theme, disabled: m.disabled, value: m.value }
  if (applyTheme) themeDocument(m.theme)
  for (const l of listeners) l(last as RenderEvent<never>)
}

function listen(): void {
  if (listening) return
  listening = true
  window.addEventListener('message', onMessage)
}

/** Put the theme on this document: every `--svc-*` variable on `:root`, and `color-scheme`. */
export function themeDocument(theme: ComponentTheme, root: HTMLElement = document.documentElement): void {
  for (const [name, value] of Object.entries(theme.variables)) if (name.startsWith('--svc-')) root.style.setProperty(name, value)
  root.style.colorScheme = theme.base
  root.dataset.theme = theme.base
}

/** Call `listener` on every render (and at once with the last one, if any); returns the unsubscribe function. */
export function onRender<A = Record<string, unknown>>(listener: (event: RenderEvent<A>) => void): () => void {
  listen()
  listeners.add(listener as Listener)
  if (last) listener(last as RenderEvent<A>)
  return () => listeners.delete(listener as Listener)
}

/** Tell the page the component is listening: it answers with a render. Call once, after `onRender`. */
export function ready(options: ReadyOptions = {}): void {
  listen()
  applyTheme = options.applyTheme ?? true
  if ((options.autoHeight ?? true) && observer === null && typeof ResizeObserver !== 'undefined') {
    observer = new ResizeObserver(() => setHeight())
    observer.observe(document.documentElement)
    if (document.body) observer.observe(document.body)
  }
  post({ svc: 'component', v: COMPONENT_PROTOCOL_VERSION, type: 'ready' })
  setHeight()
}

/** Send the page a new value (JSON): it reruns with it, like a widget change. */
export function setValue(value: unknown): void {
  post({ svc: 'component', v: COMPONENT_PROTOCOL_VERSION, type: 'setValue', value })
}

/** Set the iframe's height in pixels (default: this document's height). `ready()` keeps it in step by itself. */
export function setHeight(height?: number): void {
  const h = Math.ceil(height ?? document.documentElement.getBoundingClientRect().height)
  if (h === lastHeight) return
  lastHeight = h
  post({ svc: 'component', v: COMPONENT_PROTOCOL_VERSION, type: 'setHeight', height: h })
}

/** The last render received, or null before the first. */
export function lastRender<A = Record<string, unknown>>(): RenderEvent<A> | null {
  return last as RenderEvent<A> | null
}
