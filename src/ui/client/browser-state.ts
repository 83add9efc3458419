import type { HelloClient } from '../wire/protocol.js'

/**
 * What the page tells the server about the browser in every `hello` (`st.context`, svc's
 * entries of localStorage and sessionStorage), and what the server writes back to it: storage
 * entries and cookies (a sealed ticket posted to `{base}/_stcore/cookie`, whose answer sets them).
 */

type Area = 'local' | 'tab'

function area(which: Area): Storage | null {
  try {
    return which === 'local' ? localStorage : sessionStorage
  } catch {
    // Storage can be off (privacy settings): the page then runs without it.
    return null
  }
}

const prefix = (basePath: string): string => `svc:store:${basePath || '/'}:`

export function clientFacts(): HelloClient {
  let embedded = true
  try {
    embedded = window.self !== window.top
  } catch {
    // A cross-origin parent refuses the look: embedded.
  }
  return {
    locale: navigator.language || null,
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || null,
    timezoneOffset: new Date().getTimezoneOffset(),
    url: location.href,
    theme: document.documentElement.getAttribute('data-theme') === 'dark' ? 'dark' : 'light',
    embedded,
  }
}

/** svc's entries of both areas; none (undefined) when there are none, as on a first visit. */
export function storedEntries(basePath: string): { local?: Record<string, string>; tab?: Record<string, string> } | undefined {
  const p = prefix(basePath)
  const out: { local?: Record<string, string>; tab?: Record<string, string> } = {}
  for (const which of ['local', 'tab'] as const) {
    const store = area(which)
    if (!store) continue
    for (let i = 0; i < store.length; i++) {
      const key = store.key(i)
      if (key?.startsWith(p)) (out[which] ??= {})[key.slice(p.length)] = store.getItem(key) ?? ''
    }
  }
  return out.local || out.tab ? out : undefined
}

export function writeEntry(basePath: string, which: Area, key: string, value: string | null): void {
  const store = area(which)
  try {
    if (value === null) store?.removeItem(prefix(basePath) + key)
    else store?.setItem(prefix(basePath) + key, value)
  } catch {
    // Full or off: the server keeps its copy for this session.
  }
}

export async function postCookieTicket(basePath: string, sessionId: string, ticket: string): Promise<void> {
  const res = await fetch(`${basePath}/_stcore/cookie`, { method: 'POST', body: ticket, headers: { 'content-type': 'text/plain', 'x-svc-session': sessionId }, credentials: 'same-origin' })
  if (!res.ok) console.warn(`svc: a cookie the page wrote was not set (${((await res.json().catch(() => null)) as { message?: string } | null)?.message ?? `HTTP ${res.status}`})`)
}
