import type { PageRecord } from './page-registry.js'
import type { InjectMap } from './inject.js'
import { defaultPageTitle, type PageHandler, type PageMeta, type PageOptions } from './page-meta.js'
import type { NavEntry } from './wire/protocol.js'

/** A registered page with its options resolved (titles, order). */
export interface ResolvedPage {
  readonly path: string
  readonly slug: string
  readonly title: string
  readonly icon: string | null
  readonly tags: string[]
  readonly description: string | null
  readonly order: number | null
  readonly section: string | null
  readonly pageMeta: PageMeta | null
  readonly inject: InjectMap
  readonly handler: PageHandler
}

function trimSlash(p: string): string {
  const t = p.replace(/\/+$/, '')
  return t === '' ? '/' : t
}

/** What finding a page needs: the page server's main thread knows only these (from the manifest). */
export interface PageKey {
  readonly path: string
  readonly slug: string
  readonly title: string
}

/** Pages looked up by browser path and by `?page=` deep link. */
export class PageIndex<P extends PageKey = PageKey> {
  readonly pages: readonly P[]
  readonly #byPath = new Map<string, P>()

  constructor(pages: readonly P[]) {
    this.pages = pages
    for (const p of pages) this.#byPath.set(trimSlash(p.path), p)
  }

  /** Exact path, ignoring a trailing slash. */
  get(path: string): P | undefined {
    return this.#byPath.get(trimSlash(path))
  }

  has(path: string): boolean {
    return this.get(path) !== undefined
  }

  /** The page for a browser path; `/` falls back to the first page when none is registered there. */
  forPath(path: string): P | undefined {
    return this.get(path) ?? (trimSlash(path) === '/' ? this.pages[0] : undefined)
  }

  /** `?page=` deep links: match a page's title, path or slug (case-insensitive for titles). */
  byDeepLink(value: string): P | undefined {
    const v = value.trim()
    return this.pages.find((p) => p.title.toLowerCase() === v.toLowerCase() || trimSlash(p.path) === trimSlash(v.startsWith('/') ? v : '/' + v) || p.slug === v)
  }
}

/**
 * The app's pages in navigation order: explicit `order` (options, then static pageMeta) first,
 * lowest first; the rest in registration order. Pages named as another page's `children` appear
 * under it instead of at the top level.
 */
export class PageDirectory extends PageIndex<ResolvedPage> {
  constructor(records: readonly PageRecord<unknown, unknown>[]) {
    super(resolvePages(records))
  }

  /** What the page server's main thread needs to route browser paths. */
  keys(): PageKey[] {
    return this.pages.map((p) => ({ path: p.path, slug: p.slug, title: p.title }))
  }

  /**
   * The sidebar for `visible` pages (default every page), in their order, each with its section.
   * Pages of one section are listed together, sections in the order of their first page.
   */
  nav(visible: readonly ResolvedPage[] = this.pages): NavEntry[] {
    const shown = new Set(visible)
    const childPaths = new Set<string>()
    for (const p of visible) for (const c of p.pageMeta?.children ?? []) if (shown.has(this.get(c.path)!)) childPaths.add(trimSlash(c.path))
    const entry = (p: ResolvedPage, i: number): NavEntry => {
      const children = (p.pageMeta?.children ?? [])
        .map((c) => ({ c, target: this.get(c.path) }))
        .filter((x) => x.target !== undefined && x.target !== p && shown.has(x.target))
        .map(({ c, target }, k) => ({ path: target!.path, title: c.title ?? target!.title, icon: c.icon ?? target!.icon, order: k }))
      return { path: p.path, title: p.title, icon: p.icon, order: i, ...(p.section ? { section: p.section } : {}), ...(children.length ? { children } : {}) }
    }
    const groups = new Map<string | null, ResolvedPage[]>()
    for (const p of visible) {
      if (childPaths.has(trimSlash(p.path))) continue
      const group = groups.get(p.section) ?? []
      group.push(p)
      groups.set(p.section, group)
    }
    return [...groups.values()].flat().map(entry)
  }
}

function resolvePages(records: readonly PageRecord<unknown, unknown>[]): ResolvedPage[] {
  const resolved = records.map((r, index) => {
    const o = (r.options ?? {}) as PageOptions
    const meta = o.pageMeta ?? null
    const handler = r.handler as PageHandler
    const page: ResolvedPage = {
      path: r.path,
      slug: r.slug,
      title: o.title ?? meta?.pageTitle ?? defaultPageTitle(r.path, handler),
      icon: o.icon ?? meta?.pageIcon ?? null,
      tags: [...(o.tags ?? [])],
      description: o.description ?? meta?.description ?? null,
      order: o.order ?? meta?.order ?? null,
      section: typeof o.section === 'string' && o.section.trim() !== '' ? o.section.trim() : null,
      pageMeta: meta,
      inject: o.inject ?? {},
      handler,
    }
    return { page, index }
  })
  resolved.sort((a, b) => (a.page.order ?? Infinity) - (b.page.order ?? Infinity) || a.index - b.index)
  return resolved.map((r) => r.page)
}
