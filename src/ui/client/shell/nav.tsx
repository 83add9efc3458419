import { useEffect, useRef } from 'preact/hooks'
import type { NavEntry } from '../../protocol.js'
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
 * section first, then one menu per section that opens on click.
 */
export function TopNav({ entries, activePath }: NavProps) {
  const loose = entries.filter((e) => !e.section)
  const sections = [...new Set(entries.flatMap((e) => (e.section ? [e.section] : [])))]
  return (
    <nav class="svc-nav" aria-label="Pages">
      {loose.length > 0 ? <NavList entries={loose} activePath={activePath} /> : null}
      {sections.length > 0 ? (
        <ul class="svc-nav-list" role="list">
          {sections.map((name) => (
            <li key={name}>
              <NavMenu name={name} entries={entries.filter((e) => e.section === name)} activePath={activePath} />
            </li>
          ))}
        </ul>
      ) : null}
    </nav>
  )
}

/** One section of the top bar: a `<details>` menu, closed again by a pick, a click elsewhere or Escape. */
function NavMenu({ name, entries, activePath }: { name: string; entries: NavEntry[]; activePath: string }) {
  const menu = useRef<HTMLDetailsElement>(null)
  useEffect(() => {
    const close = (e: Event) => {
      const el = menu.current
      if (!el?.open || (e instanceof KeyboardEvent ? e.key !== 'Escape' : el.contains(e.target as Node))) return
      el.open = false
      if (e instanceof KeyboardEvent) el.querySelector('summary')?.focus()
    }
    document.addEventListener('pointerdown', close)
    document.addEventListener('keydown', close)
    return () => {
      document.removeEventListener('pointerdown', close)
      document.removeEventListener('keydown', close)
    }
  }, [])
  const active = flattenNav(entries).some((e) => e.path === activePath)
  return (
    <details ref={menu} class="svc-nav-menu">
      <summary class={active ? 'svc-nav-link is-active' : 'svc-nav-link'}>{name}</summary>
      <NavList entries={entries} activePath={activePath} sections={false} onNavigate={() => menu.current && (menu.current.open = false)} />
    </details>
  )
}

/** Flattened, ordered nav (for the not-found page). */
export function flattenNav(entries: NavEntry[]): NavEntry[] {
  return sorted(entries).flatMap((e) => [e, ...flattenNav(e.children ?? [])])
}
