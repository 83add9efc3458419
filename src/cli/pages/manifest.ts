import type { PageApp } from '../../ui/page-app.js'
import { describeMarker, markerKind, type DependsMarker } from '../../ui/inject.js'
import { PageDirectory } from '../../ui/page-directory.js'

/** `svc pages manifest`: the app's pages as stable JSON for tooling (portals, link checkers, docs). */

export interface ManifestParameter {
  name: string
  annotation: string
}

export interface ManifestPage {
  path: string
  title: string
  tags: string[]
  description: string | null
  icon: string | null
  /** The sidebar group (`section` option), or null. */
  section: string | null
  parameters: ManifestParameter[]
  dependencies: string[]
  children?: { path: string; title?: string; icon?: string }[]
}

export interface PageManifest {
  manifest_version: 1
  manifest_stability: 'stable'
  title: string
  pages: ManifestPage[]
}

/** The manifest of an app's pages (`svc pages manifest`): takes the app (`new Svc()`) or any object with its pages and title. */
export function buildPageManifest(app: Pick<PageApp, 'pages' | 'settings'>): PageManifest {
  const directory = new PageDirectory(app.pages)
  return {
    manifest_version: 1,
    manifest_stability: 'stable',
    title: app.settings.title,
    pages: directory.pages.map((p) => {
      const inject = Object.entries(p.inject)
      const dependencies = [
        ...new Set(inject.filter(([, m]) => markerKind(m) === 'depends').map(([, m]) => (m as DependsMarker<unknown>).fn.name || 'anonymous')),
      ]
      const children = p.pageMeta?.children
      return {
        path: p.path,
        title: p.title,
        tags: p.tags,
        description: p.description,
        icon: p.icon,
        section: p.section,
        parameters: [
          { name: 'st', annotation: 'St' },
          { name: 'client', annotation: 'ApiClient' },
          ...inject.map(([name, m]) => ({ name, annotation: describeMarker(m) })),
        ],
        dependencies,
        ...(children ? { children } : {}),
      }
    }),
  }
}
