import { SvcError } from '../errors.js'
import type { PageDirectory, ResolvedPage } from './page-directory.js'
import type { SessionState, StContext } from './st-types.js'
import type { StUser } from '../auth/user.js'

/**
 * `app.navigation(fn)`: the pages each session may see, computed per run from who is signed in
 * and the session. Pages it leaves out are hidden from the sidebar, and their URL shows a
 * "not available" view instead of running them (docs/pages.md#navigation-sections-and-pages-per-user).
 */

/** A registered page as `app.navigation` sees it. */
export interface NavigationPage {
  readonly path: string
  readonly title: string
  readonly icon: string | null
  /** The page's `section` option: its group in the sidebar. */
  readonly section: string | null
  readonly tags: readonly string[]
}

export interface NavigationContext {
  readonly user: StUser
  /** Headers and cookies of the page socket. */
  readonly context: StContext
  /** `st.sessionState` (read it; changes made here are not seen by the run). */
  readonly sessionState: Readonly<SessionState>
  /** Every registered page in sidebar order (`order`, then registration). */
  readonly pages: readonly NavigationPage[]
}

/** Where the page links show: the sidebar (default), a bar along the top, or nowhere (`switchPage` and links still work). */
export type NavigationPosition = 'sidebar' | 'top' | 'hidden'
export const NAVIGATION_POSITIONS: readonly NavigationPosition[] = ['sidebar', 'top', 'hidden']

export interface NavigationOptions {
  /** Default `sidebar`. */
  position?: NavigationPosition
}

/** The pages this session may open, in sidebar order: pages of `nav.pages` or their paths. */
export type NavigationFn = (nav: NavigationContext) => readonly (NavigationPage | string)[] | Promise<readonly (NavigationPage | string)[]>

const navPages = new WeakMap<PageDirectory, readonly NavigationPage[]>()

/** The directory's pages as frozen `NavigationPage`s (one list per directory). */
export function navigationPages(dir: PageDirectory): readonly NavigationPage[] {
  let pages = navPages.get(dir)
  if (!pages) {
    pages = Object.freeze(dir.pages.map((p) => Object.freeze({ path: p.path, title: p.title, icon: p.icon, section: p.section, tags: Object.freeze([...p.tags]) })))
    navPages.set(dir, pages)
  }
  return pages
}

/** The visible pages of one run: every page without a navigation function, else what it returns. */
export async function visiblePages(dir: PageDirectory, fn: NavigationFn | null, ctx: Omit<NavigationContext, 'pages'>): Promise<readonly ResolvedPage[]> {
  if (fn === null) return dir.pages
  const result: unknown = await fn({ ...ctx, pages: navigationPages(dir) })
  if (!Array.isArray(result)) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `app.navigation(): the function must return a list of pages (nav.pages entries or paths), got ${result === null ? 'null' : typeof result}`)
  }
  const out: ResolvedPage[] = []
  for (const item of result as unknown[]) {
    const path = typeof item === 'string' ? item : (item as { path?: unknown } | null)?.path
    const page = typeof path === 'string' ? dir.get(path) : undefined
    if (!page) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `app.navigation(): ${JSON.stringify(path ?? item)} is not the path of a registered page; return entries of nav.pages or paths given to app.page()`)
    }
    if (!out.includes(page)) out.push(page)
  }
  return out
}
