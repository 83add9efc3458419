import { COMPONENT_PROTOCOL_VERSION, isComponentMessage, type ComponentTheme, type FromComponent, type ToComponent } from '../../../component/protocol.js'
import type { ComponentProps } from '../../wire/elements.js'
import type { MountView } from './view.js'

/**
 * The page side of a custom component (a lazy chunk: pages without components never load it).
 * It owns the sandboxed iframe, answers the component's `ready` with a render (args, theme,
 * disabled, value), sends a new render whenever those change (the light/dark switch included),
 * sizes the iframe to what the component reports and hands its values to the page runtime.
 * Messages are taken only from this iframe's window, never by origin: a sandboxed document's
 * origin is opaque ("null").
 */

const DEFAULT_HEIGHT = 150
const MAX_HEIGHT = 10_000

/** The theme variables a component receives (colours, fonts, radius, shadows, the chart palette). */
const VARIABLES = [
  'font', 'mono', 'bg', 'bg-subtle', 'bg-muted', 'text', 'text-muted', 'text-faint', 'border', 'border-strong', 'border-hover',
  'accent', 'accent-hover', 'accent-soft', 'accent-soft-strong', 'accent-text', 'on-accent', 'focus',
  'success', 'success-bg', 'success-border', 'success-text', 'info', 'info-bg', 'info-border', 'info-text',
  'warning', 'warning-bg', 'warning-border', 'warning-text', 'warning-icon', 'error', 'error-bg', 'error-border', 'error-text',
  'code-bg', 'code-inline', 'row-hover', 'surface-raised', 'tooltip-bg', 'tooltip-text', 'radius', 'radius-sm',
  'shadow-sm', 'shadow', 'shadow-lg', 'chart-grid', 'chart-axis', 'chart-band',
  ...Array.from({ length: 10 }, (_v, i) => `chart-${i + 1}`),
].map((n) => `--svc-${n}`)

function readTheme(): ComponentTheme {
  const style = getComputedStyle(document.documentElement)
  const variables: Record<string, string> = {}
  for (const name of VARIABLES) {
    const value = style.getPropertyValue(name).trim()
    if (value !== '') variables[name] = value
  }
  return {
    base: document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light',
    primaryColor: variables['--svc-accent'] ?? '',
    backgroundColor: variables['--svc-bg'] ?? '',
    secondaryBackgroundColor: variables['--svc-bg-subtle'] ?? '',
    textColor: variables['--svc-text'] ?? '',
    font: variables['--svc-font'] ?? '',
    variables,
  }
}

/** What a render carries besides the theme; a rerun that resends equal props sends nothing. */
function signature(p: ComponentProps): string {
  return JSON.stringify([p.args, p.value, p.disabled])
}

/** An app path gets the root path; a dev server URL stays as it is. */
function srcOf(props: ComponentProps, basePath: string): string {
  return props.src.startsWith('/') ? basePath + props.src : props.src
}

/**
 * Scripts only, by default: a component served by the app gets an opaque origin, so it cannot
 * reach the page, its cookies or storage. `allow-same-origin` when the app trusts it
 * (`sameOrigin: true`), or when it comes from another origin (a dev server): there it only gives
 * the component its own origin (its module scripts and HMR work unchanged) and the page stays
 * out of its reach.
 */
function sandboxOf(src: string, sameOrigin: boolean): string {
  const foreign = new URL(src, location.href).origin !== location.origin
  return sameOrigin || foreign ? 'allow-scripts allow-same-origin' : 'allow-scripts'
}

/** `st.component`: values go to the page runtime, or to the enclosing form (the element's `sendValue`). */
export const mount: MountView<ComponentProps> = (container, first, host) => {
  let props = first
  let src = srcOf(props, host.basePath)
  let ready = false
  let sent = ''
  const iframe = document.createElement('iframe')
  iframe.setAttribute('sandbox', sandboxOf(src, props.sameOrigin))
  iframe.className = 'svc-component-frame'
  iframe.title = props.name
  iframe.referrerPolicy = 'no-referrer'
  // Styled here, not in app.css: pages without components load none of it.
  iframe.style.cssText = `display:block;width:100%;border:0;background:transparent;height:${props.height ?? DEFAULT_HEIGHT}px`
  iframe.src = src
  const render = (force: boolean): void => {
    const sig = signature(props)
    if (!ready || (!force && sig === sent)) return
    sent = sig
    const message: ToComponent = { svc: 'component', v: COMPONENT_PROTOCOL_VERSION, type: 'render', args: props.args, theme: readTheme(), disabled: props.disabled, value: props.value }
    iframe.contentWindow?.postMessage(message, '*')
  }

  const onMessage = (event: MessageEvent): void => {
    if (event.source !== iframe.contentWindow || !isComponentMessage(event.data) || event.data.v !== COMPONENT_PROTOCOL_VERSION) return
    const m = event.data as FromComponent
    if (m.type === 'ready') {
      ready = true
      render(true)
    } else if (m.type === 'setHeight') {
      if (typeof m.height === 'number' && Number.isFinite(m.height)) iframe.style.height = `${Math.min(MAX_HEIGHT, Math.max(0, Math.ceil(m.height)))}px`
    } else if (m.type === 'setValue' && !props.disabled) {
      const json = JSON.stringify(m.value)
      // The server bounds and checks it again; this only spares the socket what it would refuse.
      if (json !== undefined && json.length <= props.maxValueBytes) host.sendValue(JSON.parse(json))
    }
  }
  window.addEventListener('message', onMessage)
  const themeWatch = new MutationObserver(() => render(true))
  themeWatch.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] })
  container.appendChild(iframe)

  const view = {
    update(next: ComponentProps) {
      props = next
      const url = srcOf(props, host.basePath)
      if (url !== src) {
        src = url
        ready = false
        iframe.setAttribute('sandbox', sandboxOf(src, props.sameOrigin))
        iframe.src = src
      } else render(false)
    },
    destroy() {
      window.removeEventListener('message', onMessage)
      themeWatch.disconnect()
      iframe.remove()
    },
  }
  // Drawn once the iframe is in: from then on its own height decides, not the box the stub kept.
  return { view, ready: Promise.resolve() }
}
