/**
 * Whether this process only runs pages (the bundled page server). It never serves `app.api`, so
 * the app built there skips the OpenAPI collector and the docs UI: less to load and to hold.
 * Set by the page server before it loads the app; the app's `svc` is this module's instance.
 */
let pagesOnly = false

export function markPagesOnly(): void {
  pagesOnly = true
}

export function isPagesOnly(): boolean {
  return pagesOnly
}
