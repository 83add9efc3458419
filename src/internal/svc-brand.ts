import { kSvcApp } from './symbols.js'

/**
 * An app of any copy of svc: `new Svc()` opens its page side (the plain `PageServerApp` view of
 * src/ui/page-app.ts) under a `Symbol.for` key, so an app that imported svc from another path
 * than the runtime loading it is still recognised and read.
 */
export interface SvcBrand<PageSide = unknown> {
  [kSvcApp](): PageSide
}

/** The one check for "is this an Svc app" (`isSvc`, the target loader, dev reload); it imports no Svc class. */
export function isSvcApp(value: unknown): value is SvcBrand {
  return typeof value === 'object' && value !== null && typeof (value as Partial<Record<symbol, unknown>>)[kSvcApp] === 'function'
}
