/**
 * svc sends a Content-Security-Policy with every page (docs/pages.md#content-security-policy):
 * an image, video, frame or connection to another origin is refused unless the app's `ui_csp`
 * setting allows it. The browser reports a refusal in words that do not say where to fix it; this
 * adds one console line per refused origin that names the setting and the value to add.
 */
export function cspHint(blockedUri: string, directive: string): string | null {
  let origin: string
  try {
    origin = new URL(blockedUri).origin
  } catch {
    // 'inline' or 'eval': a script or style of the page itself, not something an origin fixes.
    return null
  }
  if (origin === 'null') return null
  return `svc: ${blockedUri} was blocked by the page's Content-Security-Policy (${directive}); to allow it, add its origin to the ui_csp setting: {"${directive}": ["${origin}"]}`
}

export function explainCspViolations(doc: Document = document): void {
  const seen = new Set<string>()
  doc.addEventListener('securitypolicyviolation', (e) => {
    const hint = cspHint(e.blockedURI, e.effectiveDirective)
    if (hint === null || seen.has(hint)) return
    seen.add(hint)
    console.warn(hint)
  })
}
