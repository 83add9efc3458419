import type { IframeProps } from '../../wire/elements.js'
import type { MountView } from './view.js'

/**
 * `st.iframe`: always sandboxed. Scripts, forms, popups and downloads may run inside, but never
 * together with `allow-same-origin`: the frame is an opaque origin that cannot reach this page,
 * its cookies or its storage, and cannot navigate the top window. `srcdoc` frames inherit the
 * page's Content-Security-Policy (a CSP without `'unsafe-inline'` blocks their inline scripts).
 */
const SANDBOX = 'allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox allow-downloads'

export const mount: MountView<IframeProps> = (el, initial, host) => {
  const frame = document.createElement('iframe')
  frame.className = 'svc-iframe'
  frame.setAttribute('sandbox', SANDBOX)
  frame.referrerPolicy = 'strict-origin-when-cross-origin'
  // Styled through the CSSOM (no stylesheet to load for a frame; a CSP allows it).
  Object.assign(frame.style, { display: 'block', maxWidth: '100%', border: '1px solid var(--svc-border)', borderRadius: 'var(--svc-radius)', background: 'var(--svc-bg)' })
  let shown = ''
  const draw = (p: IframeProps) => {
    const signature = JSON.stringify(p)
    if (signature === shown) return
    shown = signature
    frame.title = p.title
    frame.setAttribute('scrolling', p.scrolling ? 'auto' : 'no')
    frame.style.height = `${p.height}px`
    frame.style.width = p.width === null ? '100%' : `${p.width}px`
    frame.removeAttribute(p.srcdoc !== null ? 'src' : 'srcdoc')
    if (p.srcdoc !== null) frame.srcdoc = p.srcdoc
    else {
      // Checked again here, by the policy the server applied: a URL that fails it is not loaded.
      const src = host.safeUrl(p.src ?? '', 'link')
      if (src !== undefined && (/^https?:/i.test(src) || src.startsWith('/'))) frame.src = src.startsWith('/') ? host.basePath + src : src
      else frame.removeAttribute('src')
    }
  }
  draw(initial)
  el.append(frame)
  return { ready: Promise.resolve(), view: { update: draw, destroy: () => frame.remove() } }
}
