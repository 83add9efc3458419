import { useEffect, useRef } from 'preact/hooks'
import type { NavEntry } from '../../wire/protocol.js'
import { useRuntime } from '../context.js'
import { Icon } from '../icons.js'

interface NavProps {
  entries: NavEntry[]
  activePath: string
  onNavigate?: () => void
}

function sorted(entries: NavEntry[]): NavEntry[] {
  return [...entries].sort((a, b) => a.order - b.order)
}

/** Plain anchors (middle-click opens a tab); a left click navigates in place. `sections`: each section's name heads its first page. */
function NavList({ entries, activePath, onNavigate, sub = false, sections = !sub }: NavProps & { sub?: boolean; sections?: boolean }) {
  const rt = useRuntime()
  return (
    <ul class={sub ? 'svc-nav-list svc-nav-sub' : 'svc-nav-list'} role="list">
      {sorted(entries).map((entry, i, all) => {
        const active = entry.path === activePath
        // The server lists a section's pages together: its name heads the first of them.
        const section = sections && entry.section !== all[i - 1]?.section ? entry.section : undefined
        return (
          <li key={entry.path}>
            {section ? <p class="svc-nav-section">{section}</p> : null}
            <a
              class={active ? 'svc-nav-link is-active' : 'svc-nav-link'}
              href={rt.href(entry.path)}
              aria-current={active ? 'page' : undefined}
              onClick={(e) => {
                if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
                e.preventDefault()
                onNavigate?.()
                if (!active) rt.navigate(entry.path)
              }}
            >
              <span class="svc-nav-icon" aria-hidden="true">
                {entry.icon ? <Icon value={entry.icon} /> : '•'}
              </span>
              <span class="svc-nav-title">{entry.title}</span>
            </a>
            {entry.children && entry.children.length > 0 ? <NavList entries={entry.children} activePath={activePath} onNavigate={onNavigate} sub /> : null}
          </li>
        )
      })}
    </ul>
  )
}

/** Page links in the sidebar, each section under its name. */
export function Nav(props: NavProps) {
  return (
    <nav class="svc-nav" aria-label="Pages">
      <NavList {...props} />
    </nav>
  )
}

/**
 * Page links along the top (`position: 'top'`), as Streamlit lays them out: pages without a
 * section first, then a menu per section (a `<details>`), closed by a pick, a click elsewhere or Escape.
 */
export function TopNav({ entries, activePath }: NavProps) {
  const bar = useRef<HTMLElement>(null)
  const close = (e?: Event) => {
    for (const menu of bar.current?.querySelectorAll('details') ?? []) {
      if (!e || (e instanceof KeyboardEvent ? e.key === 'Escape' : !menu.contains(e.target as Node))) menu.open = false
    }
  }
  useEffect(() => {
    document.addEventListener('pointerdown', close)
    document.addEventListener('keydown', close)
    return () => {
      document.removeEventListener('pointerdown', close)
      document.removeEventListener('keydown', close)
    }
  }, [])
  // Pages without a section lead; the sections follow in their pages' order.
  const sectionOf = (e: NavEntry) => e.section ?? ''
  const sections = [...new Set(sorted(entries).map(sectionOf))].sort((a, b) => Number(a !== '') - Number(b !== ''))
  return (
    <nav ref={bar} class="svc-nav" aria-label="Pages">
      {sections.map((name) => {
        const pages = entries.filter((e) => sectionOf(e) === name)
        const list = <NavList key={name} entries={pages} activePath={activePath} onNavigate={close} sections={false} />
        if (!name) return list
        return (
          <details key={name} class="svc-nav-menu">
            <summary class={flattenNav(pages).some((e) => e.path === activePath) ? 'svc-nav-link is-active' : 'svc-nav-link'}>{name}</summary>
            {list}
          </details>
        )
      })}
    </nav>
  )
}

/** Flattened, ordered nav (for the not-found page). */
export function flattenNav(entries: NavEntry[]): NavEntry[] {
  return sorted(entries).flatMap((e) => [e, ...flattenNav(e.children ?? [])])
}
