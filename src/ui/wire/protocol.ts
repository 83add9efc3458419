import { z } from '../../internal/zod.js'

/**
 * The page protocol between the bundled sidecar (`src/ui/server`) and the browser client
 * (`src/ui/client`): JSON text frames over `WS {base}/_stcore/stream`. Every message carries
 * `v: UI_PROTOCOL_VERSION`. Client messages are validated here (a boundary); server messages are typed only.
 */
import { UI_PROTOCOL_VERSION } from './protocol-version.js'
import type { DevTypeError, TypeCheckReport } from '../../internal/dev-type-error.js'

export { UI_PROTOCOL_VERSION }

/**
 * One rendered element. Containers (columns, tabs, expander, container, form, empty) have children.
 * A widget's props carry `rev` once the server has overrode what its control shows (a reset, a
 * value the page set, a refused value): a control whose `rev` changed shows the server's value.
 */
export interface UiNode {
  /** Stable within a run: widget id (type + key/label) for widgets, position path for others. */
  id: string
  /** Element type, named like the `st` method: `title`, `button`, `columns`, `column`, `tab`, ... */
  type: string
  props: Record<string, unknown>
  children?: UiNode[]
  /** Set on nodes of the previous run kept in a partial render (show them dimmed). */
  stale?: boolean
}

export interface NavEntry {
  path: string
  title: string
  icon: string | null
  order: number
  /** The page's sidebar group; entries of one section are listed together under its name. */
  section?: string
  children?: NavEntry[]
}

export interface PageInfo {
  path: string
  title: string
  icon: string | null
  layout: 'centered' | 'wide'
  breadcrumb: string[] | null
}

/**
 * `svc dev --reload`: the app module failed to load after a save. Pages and the API keep running
 * the last version that loaded; every open tab shows this until a save loads again.
 */
export type { DevTypeError }

/** `svc dev`'s type check result: the first errors (by place) and how many in all. */
export type DevTypeErrors = TypeCheckReport

export interface DevLoadError {
  /** The terminal's line: `cannot load app.ts: <cause> (at <place>); <fix>`. */
  summary: string
  /** What went wrong: `syntax error: Unexpected ";"`. */
  cause: string
  fix: string
  /** The file at fault, relative to the working directory; null when the error names no place. */
  file: string | null
  /** 1-based, like editors. */
  line: number | null
  column: number | null
  /** Source lines around `line` (empty without a place). */
  frame: { line: number; text: string }[]
}

export type ServerMessage =
  | { v: typeof UI_PROTOCOL_VERSION; type: 'session'; sessionId: string; restored: boolean }
  /** Sent on connect and on every change while `svc dev --reload` runs; `error: null` clears it. */
  | { v: typeof UI_PROTOCOL_VERSION; type: 'dev_error'; error: DevLoadError | null }
  /** `svc dev`'s type check: the first errors and how many in all (sent on connect and on every change; `total: 0` clears them). */
  | ({ v: typeof UI_PROTOCOL_VERSION; type: 'type_errors' } & DevTypeErrors)
  | { v: typeof UI_PROTOCOL_VERSION; type: 'run_state'; runId: number; running: boolean }
  | {
      v: typeof UI_PROTOCOL_VERSION
      type: 'render'
      runId: number
      page: PageInfo
      nav: NavEntry[]
      /** Issue #36: where the page links show (`app.navigation(…, { position })`); absent: the sidebar. */
      navPosition?: 'top' | 'hidden'
      main: UiNode[]
      sidebar: UiNode[]
      /** Query string the URL should show after this run (without `?`). */
      query: string
      /** Page not found: `main` lists the pages. */
      notFound?: boolean
      /**
       * Sent while a slow run is still going (spinners, progress): `main`/`sidebar` hold what the
       * run emitted so far, followed by the previous run's remaining nodes marked `stale`.
       * The run's last render has `partial` absent or false.
       */
      partial?: boolean
      /**
       * The number (`n`) of the last of this socket's client messages the render reflects (what
       * its run started from, plus values refused while it ran): what the browser did after
       * sending it, the render cannot know, so it does not replace it.
       * Absent: the browser takes the render's values as they are.
       */
      seen?: number
    }
  | { v: typeof UI_PROTOCOL_VERSION; type: 'query'; query: string }
  | { v: typeof UI_PROTOCOL_VERSION; type: 'navigate'; path: string; query: string }
  /** Leave the page for an app URL (`st.login()`, `st.logout()`): `url` starts with `/`, the client adds the root path. */
  | { v: typeof UI_PROTOCOL_VERSION; type: 'location'; url: string }
  | { v: typeof UI_PROTOCOL_VERSION; type: 'toast'; id: string; body: string; icon: string | null }
  | { v: typeof UI_PROTOCOL_VERSION; type: 'error'; message: string }
  /** The session moved to another page thread (a reload, a thread replaced): send `hello` again on this socket. */
  | { v: typeof UI_PROTOCOL_VERSION; type: 'resume' }
  /** The run took longer than `ui_run_timeout_s` and was stopped; `hello` again runs the page anew. */
  | { v: typeof UI_PROTOCOL_VERSION; type: 'run_stopped'; seconds: number }
  /** Answer to `dataframe_page`: one page of a dataframe of the latest run (no rerun). */
  | {
      v: typeof UI_PROTOCOL_VERSION
      type: 'dataframe_rows'
      id: string
      runId: number
      page: number
      pageSize: number
      totalRows: number
      sort: { column: string; direction: 'asc' | 'desc' } | null
      rows: unknown[][]
      /** Per row: its id (`RowId` of elements.ts), for selection and edits. */
      rowIds: (string | number)[]
    }
  /**
   * Answer to `download`: the file a download button's function made, as a media URL for the
   * browser to save (no rerun); `url` null when the function failed, with what the visitor may read.
   */
  | { v: typeof UI_PROTOCOL_VERSION; type: 'download_ready'; id: string; url: string | null; fileName: string; message: string | null }
  /** Write (`value`) or delete (null) one of svc's entries of the browser's localStorage (`local`) or sessionStorage (`tab`). */
  | { v: typeof UI_PROTOCOL_VERSION; type: 'storage'; area: 'local' | 'tab'; key: string; value: string | null }
  /** Cookies a page wrote, sealed: the browser posts the ticket to `{base}/_stcore/cookie`, whose answer sets them. */
  | { v: typeof UI_PROTOCOL_VERSION; type: 'cookie'; ticket: string }

/**
 * A node as it travels in a `render` on one connection. The server remembers what it sent last
 * on that connection and sends only what changed: `{ id, same: true }` is the node with that id
 * from the previous render, unchanged with its whole subtree; `sameProps: true` keeps the
 * previous props but lists the children again (some of them changed). The first render of a
 * connection is always complete, so a reconnecting client needs no history.
 */
export type WireNode =
  | { id: string; same: true }
  | { id: string; type: string; props: Record<string, unknown>; children?: WireNode[]; stale?: boolean }
  | { id: string; type: string; sameProps: true; children?: WireNode[]; stale?: boolean }

type RenderMessage = Extract<ServerMessage, { type: 'render' }>
/** What a socket carries: `ServerMessage` with the render's trees encoded as `WireNode`s. */
export type WireServerMessage = Exclude<ServerMessage, RenderMessage> | (Omit<RenderMessage, 'main' | 'sidebar'> & { main: WireNode[]; sidebar: WireNode[] })

const v1 = { v: z.literal(UI_PROTOCOL_VERSION) }
/**
 * Every message after `hello` carries its number on the socket (1, 2, ...), which renders quote
 * back as `seen`; numbers, not a count, so a message the server could not take leaves no gap.
 */
const after = { ...v1, n: z.number().int().min(1).optional() }
const json = z.unknown()

/**
 * What only the browser knows, for `st.context`. A field that breaks its bound reads as unknown
 * (null) rather than refusing the hello: the page runs either way.
 */
export const HelloClient = z.object({
  /** `navigator.language` (BCP 47). */
  locale: z.string().max(64).regex(/^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/).nullable().catch(null),
  /** IANA name (`Intl.DateTimeFormat().resolvedOptions().timeZone`); the server checks it names a zone. */
  timezone: z.string().max(64).regex(/^[A-Za-z0-9_+\-/]+$/).nullable().catch(null),
  /** Minutes, as `Date#getTimezoneOffset()` (UTC minus local time). */
  timezoneOffset: z.number().int().min(-1440).max(1440).nullable().catch(null),
  url: z.string().max(12_288).nullable().catch(null),
  theme: z.enum(['light', 'dark']).nullable().catch(null),
  embedded: z.boolean().catch(false),
})
export type HelloClient = z.infer<typeof HelloClient>

/** svc's entries of the browser's storage areas (`st.localStorage`, `st.tabStorage`); their size is bounded by the hello's (64 KiB). */
const storageArea = z.record(z.string().max(128), z.string().max(64 * 1024))
export const HelloStorage = z.object({ local: storageArea.optional(), tab: storageArea.optional() })

export const ClientMessage = z.discriminatedUnion('type', [
  /** First message on every (re)connect. `sessionId` resumes a session within its TTL. */
  z.object({
    ...v1,
    type: z.literal('hello'),
    sessionId: z.string().max(128).nullable(),
    path: z.string().max(2048),
    query: z.string().max(8192),
    client: HelloClient.optional().catch(undefined),
    storage: HelloStorage.optional().catch(undefined),
  }),
  /** A widget changed; `trigger` marks button clicks (true for one run only). */
  z.object({ ...after, type: z.literal('widget'), id: z.string().max(512), value: json, trigger: z.boolean().optional() }),
  /** A form was submitted: all its widget values at once, then one rerun. */
  z.object({ ...after, type: z.literal('form_submit'), formId: z.string().max(512), values: z.record(z.string(), json) }),
  /** Client-side navigation (sidebar link, back/forward). */
  z.object({ ...after, type: z.literal('navigate'), path: z.string().max(2048), query: z.string().max(8192) }),
  z.object({ ...after, type: z.literal('rerun') }),
  /** Page or sort change of a `dataframe` element; answered with `dataframe_rows`, no rerun. */
  z.object({
    ...after,
    type: z.literal('dataframe_page'),
    id: z.string().max(512),
    page: z.number().int().min(0),
    sort: z.object({ column: z.string().max(512), direction: z.enum(['asc', 'desc']) }).nullable(),
  }),
  /** A download button whose data is made on click (issue #36); answered with `download_ready`, no rerun. */
  z.object({ ...after, type: z.literal('download'), id: z.string().max(512) }),
])
export type ClientMessage = z.infer<typeof ClientMessage>

/** Nesting a client message may have (a data-editor edit is four levels deep). */
export const MAX_MESSAGE_DEPTH = 32
/** Array items and object keys a client message may hold, counted over the whole message. */
export const MAX_MESSAGE_ENTRIES = 100_000

/**
 * Parse and validate one client message; null when it is not JSON, nests deeper than
 * `MAX_MESSAGE_DEPTH`, holds more than `MAX_MESSAGE_ENTRIES` entries or is no page-protocol
 * message. Its size was bounded before it was read (`ui_max_message_bytes`).
 */
export function parseClientMessage(text: string | Uint8Array): ClientMessage | null {
  let data: unknown
  try {
    data = JSON.parse(typeof text === 'string' ? text : utf8.decode(text))
  } catch {
    return null
  }
  if (!withinBounds(data)) return null
  const parsed = ClientMessage.safeParse(data)
  return parsed.success ? parsed.data : null
}

/** `fatal`: bytes that are not UTF-8 make the message malformed (the page server reads text frames unchecked). */
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** One pass over the parsed value, without recursion (a deep value must not exhaust the stack). */
function withinBounds(root: unknown): boolean {
  const stack: [unknown, number][] = [[root, 1]]
  let entries = 0
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!
    if (typeof value !== 'object' || value === null) continue
    if (depth > MAX_MESSAGE_DEPTH) return false
    const children = Array.isArray(value) ? value : Object.values(value)
    entries += children.length
    if (entries > MAX_MESSAGE_ENTRIES) return false
    for (const child of children) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1])
  }
  return true
}
