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

/** Page links in the sidebar. Plain anchors (middle-click opens a tab); a left click navigates in place. */
export function Nav({ entries, activePath, onNavigate }: NavProps) {
  const rt = useRuntime()
  const renderList = (list: NavEntry[], depth: number) => (
    <ul class={depth === 0 ? 'svc-nav-list' : 'svc-nav-list svc-nav-sub'} role="list">
      {sorted(list).map((entry, i, all) => {
        const active = entry.path === activePath
        // The server lists a section's pages together: its name heads the first of them.
        const section = entry.section !== all[i - 1]?.section ? entry.section : undefined
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
            {entry.children && entry.children.length > 0 ? renderList(entry.children, depth + 1) : null}
          </li>
        )
      })}
    </ul>
  )
  return (
    <nav class="svc-nav" aria-label="Pages">
      {renderList(entries, 0)}
    </nav>
  )
}

/** Flattened, ordered nav (for the not-found page). */
export function flattenNav(entries: NavEntry[]): NavEntry[] {
  return sorted(entries).flatMap((e) => [e, ...flattenNav(e.children ?? [])])
}
