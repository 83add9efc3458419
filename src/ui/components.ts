import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { extname, isAbsolute, join, relative, resolve as resolvePath, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { z } from 'zod'
import { SvcError } from '../errors.js'

/**
 * Custom components: a page declares a frontend served from a folder of built files (or, while
 * developing it, a URL such as a Vite dev server), passes it arguments and gets a value back
 * (docs/pages.md#custom-components). The component runs in a sandboxed iframe and talks to the
 * page through the postMessage protocol of `svc/component`.
 */

/** The URL path under which the page server serves a folder component's files: `<prefix><name>/<version>/<file>`. */
export const COMPONENT_PREFIX = '/_stcore/component/'
/** A value the component sends is refused above this many bytes of JSON (per component: `maxValueBytes`). */
export const DEFAULT_COMPONENT_VALUE_BYTES = 64 * 1024
const MAX_FOLDER_FILES = 2_000
const MAX_FOLDER_BYTES = 64 * 1024 * 1024
const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/

export interface ComponentFromFolder<A, V> {
  /** The folder of the built component (`index.html` and its assets): a path or a `file:` URL. */
  path: string | URL
  /** The HTML file of the component in the folder (default `index.html`). */
  entry?: string
  /**
   * Give the component the app's origin (`sandbox="allow-scripts allow-same-origin"`): it can
   * then use cookies, storage and the app's API as the signed-in user, and could escape its
   * sandbox. Only for code you trust as much as the app itself. Default false.
   */
  sameOrigin?: boolean
  args?: z.ZodType<A>
  value?: z.ZodType<V>
  maxValueBytes?: number
}

export interface ComponentFromUrl<A, V> {
  /** A dev server (`http://localhost:5173/`) or any http(s) page that speaks `svc/component`. */
  url: string
  args?: z.ZodType<A>
  value?: z.ZodType<V>
  maxValueBytes?: number
}

export type ComponentSource<A, V> = ComponentFromFolder<A, V> | ComponentFromUrl<A, V>

/** What `declareComponent` returns: pass it to `st.component(component, args, options)`. */
export interface Component<A = Record<string, unknown>, V = unknown> {
  readonly name: string
  /** Where the iframe loads it from: an app path (`/_stcore/component/<name>/<version>/index.html`) or the URL given. */
  readonly src: string
  readonly sameOrigin: boolean
  readonly maxValueBytes: number
  /** Checks `args` before they are sent (the schema, else JSON-ability); returns what is sent. */
  parseArgs(args: unknown): A
  /** A value from the browser: size-bounded, then checked by the schema; throws when refused. */
  parseValue(raw: unknown): V
  /** Phantom types for inference. */
  readonly _types?: { args: A; value: V }
}

interface SafeParser {
  safeParse(input: unknown): { success: true; data: unknown } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } }
}

/** A folder component's files, read once: relative path (with `/`) → absolute path, and the content hash. */
interface FolderFiles {
  readonly version: string
  readonly files: ReadonlyMap<string, string>
}

const kRegistry = Symbol.for('svc.ui.components')

/** Declared components of this process by name (a `Symbol.for` slot: every copy of svc in the process shares it). */
function registry(): Map<string, FolderComponent> {
  const slot = globalThis as unknown as Record<symbol, Map<string, FolderComponent> | undefined>
  return (slot[kRegistry] ??= new Map<string, FolderComponent>())
}

const kUrlOrigins = Symbol.for('svc.ui.componentOrigins')

/** Origins of the `url` components declared in this process: the page's CSP lets them be framed. */
export function componentFrameOrigins(): readonly string[] {
  return [...((globalThis as unknown as Record<symbol, Set<string> | undefined>)[kUrlOrigins] ?? [])]
}

function addFrameOrigin(origin: string): void {
  const slot = globalThis as unknown as Record<symbol, Set<string> | undefined>
  ;(slot[kUrlOrigins] ??= new Set()).add(origin)
}

/** The folder component named `name`, for the page server's file route. */
export function folderComponent(name: string): FolderComponent | undefined {
  return registry().get(name)
}

/** The components an app declared, as the page server's main thread (which never loads the app) needs them. */
export interface DeclaredComponents {
  folders: { name: string; folder: string; entry: string; sameOrigin: boolean }[]
  frameOrigins: string[]
}

/** What `declareComponent` registered in this process (a page thread or the manifest child). */
export function declaredComponents(): DeclaredComponents {
  const folders = [...registry().values()].map((c) => ({ name: c.name, folder: c.folder, entry: c.entry, sameOrigin: c.sameOrigin }))
  return { folders, frameOrigins: [...componentFrameOrigins()] }
}

/**
 * Register what the app declared elsewhere: the page server's main thread serves the folders'
 * files and frames the url components' origins. Each folder is read afresh, as a re-declaration is.
 */
export function adoptComponents(declared: DeclaredComponents): void {
  for (const c of declared.folders) registry().set(c.name, new FolderComponent(c.name, c.folder, c.entry, c.sameOrigin))
  for (const origin of declared.frameOrigins) addFrameOrigin(origin)
}

/**
 * A folder of built files, hashed on first use (the version in its URL, so browsers may cache
 * its files for good) and served only from the list read then: no path outside it is reachable.
 */
export class FolderComponent {
  readonly name: string
  readonly folder: string
  readonly entry: string
  readonly sameOrigin: boolean
  #files: FolderFiles | null = null

  constructor(name: string, folder: string, entry: string, sameOrigin: boolean) {
    this.name = name
    this.folder = folder
    this.entry = entry
    this.sameOrigin = sameOrigin
  }

  get version(): string {
    return this.#read().version
  }

  /** Absolute path of `file` (relative, `/`-separated) if the folder had it when read. */
  file(file: string): string | undefined {
    return this.#read().files.get(file)
  }

  #read(): FolderFiles {
    this.#files ??= readFolder(this.name, this.folder, this.entry)
    return this.#files
  }
}

function readFolder(name: string, folder: string, entry: string): FolderFiles {
  let listing: string[]
  try {
    listing = readdirSync(folder, { recursive: true, encoding: 'utf8' })
  } catch (err) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `component "${name}": cannot read its folder ${folder} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); build the component first, or pass the folder of its built files`)
  }
  const hash = createHash('sha256')
  const files = new Map<string, string>()
  let bytes = 0
  for (const rel of listing.sort()) {
    const abs = join(folder, rel)
    const st = statSync(abs)
    if (!st.isFile()) continue
    if (files.size >= MAX_FOLDER_FILES || (bytes += st.size) > MAX_FOLDER_BYTES) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `component "${name}": ${folder} holds more than ${MAX_FOLDER_FILES} files or ${MAX_FOLDER_BYTES / 1024 / 1024} MiB; pass the folder of the built component (e.g. its dist/), not its sources`)
    }
    const key = rel.split(sep).join('/')
    files.set(key, abs)
    hash.update(key).update('\0').update(readFileSync(abs)).update('\0')
  }
  if (!files.has(entry)) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `component "${name}": ${folder} has no ${entry}; build the component first (its build writes ${entry} and its assets there)`)
  }
  return { version: hash.digest('hex').slice(0, 16), files }
}

function folderPath(name: string, path: string | URL): string {
  const p = path instanceof URL || path.startsWith('file:') ? fileURLToPath(path) : path
  if (!isAbsolute(p)) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `component "${name}": path must be absolute (the app may run from any directory); write it as new URL('./my-component/dist', import.meta.url)`)
  }
  return resolvePath(p)
}

function checkedUrl(name: string, url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `component "${name}": url ${JSON.stringify(url)} is not an absolute URL; pass e.g. "http://localhost:5173/"`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `component "${name}": url must be http(s), got ${parsed.protocol}`)
  }
  return parsed.href
}

function schemaParse<T>(schema: SafeParser | undefined, input: unknown, what: string): T {
  if (!schema) return input as T
  const parsed = schema.safeParse(input)
  if (parsed.success) return parsed.data as T
  const issues = parsed.error.issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
  throw new SvcError('SVC_ERR_UI_BAD_CALL', `${what}: ${issues.join('; ')}`)
}

/** JSON text of `value`, refusing what JSON cannot carry faithfully (functions, bigint, cycles). */
function jsonOf(value: unknown, what: string): string {
  let found: string | null = null
  let text: string | undefined
  try {
    text = JSON.stringify(value, (_k, v: unknown) => {
      if (typeof v === 'function' || typeof v === 'bigint' || typeof v === 'symbol') found ??= `a ${typeof v}`
      return typeof v === 'bigint' ? null : v
    })
  } catch {
    found = 'an object that contains itself'
  }
  if (found !== null) throw new SvcError('SVC_ERR_UI_BAD_CALL', `${what} must be JSON (plain objects, arrays, strings, numbers, booleans, null); found ${found}`)
  return text ?? 'null'
}

/**
 * Declare a custom component, once, at module level (like `cacheData`): `name` is unique per app
 * (letters, digits, `-`, `_`), and the source is a folder of built files or a URL. Optional zod
 * schemas check (and type) the arguments a page passes and the value the component sends back.
 *
 * ```ts
 * export const rating = declareComponent('star-rating', {
 *   path: new URL('./star-rating/dist', import.meta.url),
 *   args: z.object({ max: z.number().int(), label: z.string() }),
 *   value: z.number().int().min(0),
 * })
 * const stars = st.component(rating, { max: 5, label: 'Rate it' }, { key: 'stars', default: 0 })
 * ```
 */
export function declareComponent<A = Record<string, unknown>, V = unknown>(name: string, source: ComponentSource<A, V>): Component<A, V> {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `declareComponent(${JSON.stringify(name)}): a name is 1-64 lower-case letters, digits, "-" or "_", starting with a letter or digit`)
  }
  const max = source.maxValueBytes ?? DEFAULT_COMPONENT_VALUE_BYTES
  if (!Number.isInteger(max) || max <= 0 || max > 16 * 1024 * 1024) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `component "${name}": maxValueBytes must be a whole number of bytes from 1 to 16 MiB, got ${String(source.maxValueBytes)}`)
  }
  const hasPath = 'path' in source && source.path !== undefined
  const hasUrl = 'url' in source && source.url !== undefined
  if (hasPath === hasUrl) throw new SvcError('SVC_ERR_UI_BAD_CALL', `component "${name}": give exactly one of path (a folder of built files) and url (a dev server)`)
  let src: () => string
  let sameOrigin = false
  if (hasPath) {
    const s = source as ComponentFromFolder<A, V>
    const entry = (s.entry ?? 'index.html').replace(/^\/+/, '')
    const folder = folderPath(name, s.path)
    const existing = registry().get(name)
    if (existing && existing.folder !== folder) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `two components are named "${name}" (${existing.folder} and ${folder}); give each its own name`)
    }
    if (relative(folder, join(folder, entry)).startsWith('..')) throw new SvcError('SVC_ERR_UI_BAD_CALL', `component "${name}": entry must be a file inside its folder`)
    sameOrigin = s.sameOrigin === true
    // A re-import (svc dev --reload) declares it again: the folder is read afresh.
    const files = new FolderComponent(name, folder, entry, sameOrigin)
    registry().set(name, files)
    src = () => `${COMPONENT_PREFIX}${name}/${files.version}/${entry}`
  } else {
    const url = checkedUrl(name, (source as ComponentFromUrl<A, V>).url)
    addFrameOrigin(new URL(url).origin)
    src = () => url
  }
  const argsSchema = source.args as SafeParser | undefined
  const valueSchema = source.value as SafeParser | undefined
  return Object.freeze({
    name,
    get src() {
      return src()
    },
    sameOrigin,
    maxValueBytes: max,
    parseArgs(args: unknown): A {
      const parsed = schemaParse<A>(argsSchema, args, `st.component(${name}): invalid args`)
      jsonOf(parsed, `st.component(${name}): args`)
      return parsed
    },
    parseValue(raw: unknown): V {
      if (jsonOf(raw, `component "${name}" value`).length > max) throw new SvcError('SVC_ERR_UI_BAD_CALL', `component "${name}": a value larger than ${max} bytes was refused`)
      return schemaParse<V>(valueSchema, raw, `component "${name}": invalid value`)
    },
  })
}

/** File extensions a component folder is served with (others: `application/octet-stream`). */
export const COMPONENT_FILE_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
}

export function componentFileType(file: string): string {
  return COMPONENT_FILE_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream'
}
