import { z } from '../internal/zod.js'
import type { ApiClient } from '../client/api-client.js'
import type { InjectMap, InjectedDeps } from './inject.js'
import type { St } from './st-types.js'
import { SvcError } from '../errors.js'

/**
 * Page metadata: static options of `app.page(path, options, handler)` and the `PageMeta` a
 * handler may return (applied after the run: title, icon, layout, breadcrumb).
 */

const NavChild = z.object({
  path: z.string().startsWith('/'),
  title: z.string().optional(),
  icon: z.string().optional(),
})

export const PageMetaSchema = z.object({
  pageTitle: z.string().optional(),
  pageIcon: z.string().optional(),
  layout: z.enum(['centered', 'wide']).optional(),
  breadcrumb: z.array(z.string()).optional(),
  order: z.number().optional(),
  description: z.string().optional(),
  /** Pages listed under this one in the sidebar. */
  children: z.array(NavChild).optional(),
})
export type PageMeta = z.infer<typeof PageMetaSchema>

export interface PageOptions<I extends InjectMap = InjectMap> {
  title?: string
  icon?: string
  tags?: string[]
  description?: string
  /** Sidebar position (lower first); pages without one follow in registration order. */
  order?: number
  /** The group this page is listed under in the sidebar (and in `svc pages manifest`). */
  section?: string
  /** Applied at the start of every run; a returned PageMeta overrides it for that run. */
  pageMeta?: PageMeta
  inject?: I
}

export type PageHandler<I extends InjectMap = InjectMap> = (
  st: St,
  client: ApiClient,
  deps: InjectedDeps<I>,
) => void | PageMeta | Promise<void | PageMeta>

/** A returned value that is not a PageMeta is ignored; a malformed PageMeta is an error. */
export function parseReturnedMeta(value: unknown): PageMeta | null {
  if (value === undefined || value === null || typeof value !== 'object') return null
  const parsed = PageMetaSchema.safeParse(value)
  if (!parsed.success) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `the page function returned an invalid PageMeta: ${z.prettifyError(parsed.error)}`)
  }
  return parsed.data
}

/** `salesReport` / `sales_report` → "Sales Report". */
export function titleCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_\-/]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ')
}

/** Title when none is given: the handler's name, else the last path segment, else "Home". */
export function defaultPageTitle(path: string, handler: (...args: never[]) => unknown): string {
  const name = handler.name ?? ''
  if (name !== '' && name !== 'anonymous' && !name.startsWith('bound ')) return titleCase(name)
  const last = path.replace(/\/+$/, '').split('/').pop() ?? ''
  return last === '' ? 'Home' : titleCase(decodeURIComponent(last))
}
