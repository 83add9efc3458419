import { SvcError } from '../errors.js'
import type { St } from './st-types.js'

/**
 * Page dependency injection: `inject: { db: Depends(openDb), lang: Header('accept-language'),
 * sid: Cookie('sid') }` gives the page `deps.db`, `deps.lang`, `deps.sid`, resolved on every run.
 */

const kInject = Symbol.for('svc.ui.inject')

export interface DependsMarker<T> {
  readonly [kInject]: 'depends'
  readonly fn: (st: St) => T | Promise<T>
}
export interface HeaderMarker {
  readonly [kInject]: 'header'
  readonly name: string
}
export interface CookieMarker {
  readonly [kInject]: 'cookie'
  readonly name: string
}
export type InjectMarker = DependsMarker<unknown> | HeaderMarker | CookieMarker
export type InjectMap = Record<string, InjectMarker>

/** The value a marker resolves to. */
export type InjectedValue<M> = M extends DependsMarker<infer T> ? Awaited<T> : string | undefined
export type InjectedDeps<I extends InjectMap> = { [K in keyof I]: InjectedValue<I[K]> }

/** Resolve `fn(st)` on every run (awaited when it returns a promise). */
export function Depends<T>(fn: (st: St) => T | Promise<T>): DependsMarker<T> {
  if (typeof fn !== 'function') throw new SvcError('SVC_ERR_UI_BAD_CALL', 'Depends(fn): fn must be a function returning the dependency, e.g. Depends(() => openDb())')
  return Object.freeze({ [kInject]: 'depends' as const, fn })
}

/** A header of the page's WebSocket handshake (case-insensitive), or undefined. */
export function Header(name: string): HeaderMarker {
  if (typeof name !== 'string' || name === '') throw new SvcError('SVC_ERR_UI_BAD_CALL', 'Header(name): name must be a header name, e.g. Header("accept-language")')
  return Object.freeze({ [kInject]: 'header' as const, name })
}

/** A cookie sent with the page's WebSocket handshake, or undefined. */
export function Cookie(name: string): CookieMarker {
  if (typeof name !== 'string' || name === '') throw new SvcError('SVC_ERR_UI_BAD_CALL', 'Cookie(name): name must be a cookie name, e.g. Cookie("sid")')
  return Object.freeze({ [kInject]: 'cookie' as const, name })
}

export function isInjectMarker(value: unknown): value is InjectMarker {
  return typeof value === 'object' && value !== null && kInject in value
}

export function markerKind(marker: InjectMarker): 'depends' | 'header' | 'cookie' {
  return marker[kInject]
}

/** How a marker appears in the pages manifest. */
export function describeMarker(marker: InjectMarker): string {
  switch (marker[kInject]) {
    case 'depends':
      return `Depends(${(marker as DependsMarker<unknown>).fn.name || 'anonymous'})`
    case 'header':
      return `Header(${JSON.stringify((marker as HeaderMarker).name)})`
    case 'cookie':
      return `Cookie(${JSON.stringify((marker as CookieMarker).name)})`
  }
}

/**
 * Resolve every marker for one run. `overrides` (from `SVC_TEST_PAGE_OVERRIDES` or the test
 * handle) win, keyed by the inject name.
 */
export async function resolveInjections(
  inject: InjectMap,
  st: St,
  overrides: Readonly<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {}
  for (const [name, marker] of Object.entries(inject)) {
    if (Object.hasOwn(overrides, name)) {
      out[name] = overrides[name]
      continue
    }
    switch (marker[kInject]) {
      case 'depends':
        out[name] = await (marker as DependsMarker<unknown>).fn(st)
        break
      case 'header':
        out[name] = st.context.headers[(marker as HeaderMarker).name.toLowerCase()]
        break
      case 'cookie':
        out[name] = st.context.cookies[(marker as CookieMarker).name]
        break
    }
  }
  return out
}

/** `SVC_TEST_PAGE_OVERRIDES`: a JSON object keyed by inject names. */
export function overridesFromEnv(env: NodeJS.ProcessEnv = process.env): Record<string, unknown> {
  const raw = env.SVC_TEST_PAGE_OVERRIDES
  if (!raw || raw.trim() === '') return {}
  let v: unknown
  try {
    v = JSON.parse(raw)
  } catch (err) {
    throw new SvcError('SVC_ERR_CONFIG_INVALID', `SVC_TEST_PAGE_OVERRIDES is not valid JSON (${(err as Error).message}); set it to an object keyed by inject names, e.g. {"db":{"fake":true}}`, { cause: err })
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new SvcError('SVC_ERR_CONFIG_INVALID', 'SVC_TEST_PAGE_OVERRIDES must be a JSON object keyed by inject names, e.g. {"lang":"de"}')
  }
  return v as Record<string, unknown>
}
