import { SvcError } from '../errors.js'

/**
 * Page registration: `app.page(path, options?, handler)`. The page runtime (`src/ui/`) runs
 * these records; the registry only stores and checks them (duplicates, slug collisions).
 */

/** Slug of a page path: slashes stripped at both ends; the root is `home`. */
export function pageSlug(path: string): string {
  const s = path.replace(/^\/+|\/+$/g, '')
  return s === '' ? 'home' : s
}

export function normalizePagePath(path: string): string {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new SvcError('SVC_ERR_UI_DUPLICATE_PAGE', `app.page(${JSON.stringify(path)}): a page path must start with "/", e.g. "/reports"`)
  }
  return path
}

export interface PageRecord<H = unknown, O = unknown> {
  readonly path: string
  readonly slug: string
  readonly handler: H
  readonly options: O
}

export class PageRegistry<H = unknown, O = unknown> {
  readonly #records: PageRecord<H, O>[] = []

  add(path: string, options: O, handler: H): PageRecord<H, O> {
    const p = normalizePagePath(path)
    const slug = pageSlug(p)
    for (const r of this.#records) {
      if (r.path === p) {
        throw new SvcError('SVC_ERR_UI_DUPLICATE_PAGE', `duplicate page path "${p}": it is already registered; give each app.page() its own path`)
      }
      if (r.slug === slug) {
        throw new SvcError(
          'SVC_ERR_UI_DUPLICATE_PAGE',
          `page path "${p}" collides with "${r.path}": both map to the slug "${slug}"; rename one of them`,
        )
      }
    }
    const record: PageRecord<H, O> = Object.freeze({ path: p, slug, handler, options })
    this.#records.push(record)
    return record
  }

  get records(): readonly PageRecord<H, O>[] {
    return this.#records
  }
}
