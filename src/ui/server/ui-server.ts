import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { http } from '../../internal/node-http.js'
import { PAGE_SERVER_FORCE_CLOSE_MS } from '../../internal/deadlines.js'
import type { AddressInfo, Socket } from 'node:net'
import type { Logger } from 'pino'
import { WebSocket, WebSocketServer } from 'ws'
import type { PageApp } from '../page-app.js'
import type { DevLoadError, DevTypeErrors, ServerMessage } from '../wire/protocol.js'
import { MEDIA_PREFIX, type MediaStore } from '../media-store.js'
import type { PageIndex } from '../page-directory.js'
import type { SessionHost } from './local-sessions.js'
import type { PageThreadPool } from './page-thread-pool.js'
import { renderShell } from './shell.js'
import { COMPONENT_PREFIX } from '../components.js'
import { serveComponentFile } from './component-files.js'
import { ClientAssets, generatedStyle, REVALIDATE, STATIC_PREFIX, THEME_STYLE_PREFIX, type GeneratedStyle, type StaticFile } from './static-files.js'
import { sendStatic } from './send-static.js'
import { sendCompressible } from './compress-body.js'
import { appPageCsp } from './page-csp.js'
import { answerInternalError, refuseUpgrade } from './request-failure.js'
import { handleUpload, UPLOAD_PATH } from './uploads.js'
import { COOKIE_PATH, handleCookieTicket } from './cookie-endpoint.js'
import type { CookieKeys } from '../storage/cookie-keys.js'
import { servePageSocket } from './ws-endpoint.js'
import { stripBase } from './base-path.js'
import { SvcError } from '../../errors.js'
import { Lifecycle } from '../../internal/lifecycle.js'
import { themeCss } from '../../settings/theme.js'
import { loadAppIcon, type AppIcon } from '../../settings/app-icon.js'
import { DEFAULT_MAP_STYLE_URL, mapStyles, type MapStyles } from '../../settings/map-style.js'
import { MEDIA_CSP } from '../media-headers.js'
import { UI_PROTOCOL_VERSION } from '../wire/protocol.js'

/**
 * What the page server's main thread shows of the app (title, theme, CSP, which paths are pages):
 * from the app itself (`ui_page_threads: 0`) or from the manifest its loader child reported.
 */
export interface PageSite {
  settings: PageApp['settings']
  pages: PageIndex
}

export interface UiServerOptions {
  site: PageSite
  /** The page sessions: in this thread, or a pool of page threads (then also `pool`). */
  sessions: SessionHost
  /** The page threads, when they run the sessions: started by the first page request, asked for readiness. */
  pool: PageThreadPool | null
  /** Where pages' media bytes are served from. */
  media: MediaStore
  /** Public root path ('' or '/tools'); every route below is served under it. */
  basePath: string
  host: string
  port: number
  /** Listen on this inherited, already bound socket (supervisor-owned port) instead of host:port. */
  listenFd?: number
  logger: Logger
  /** The built browser client (`dist/client`). */
  assets: ClientAssets
  /** `ui_max_message_bytes`: the largest page-socket message read (0 = no limit). */
  maxMessageBytes: number
  /** `ui_max_upload_bytes`: the largest file one upload request may carry (0 = no limit). */
  maxUploadBytes: number
  /** Opens the cookie tickets pages hand the browser (`st.cookies`). */
  cookieKeys?: CookieKeys
}
const HEALTH = '/_stcore/health'
const STREAM = '/_stcore/stream'
/**
 * The `theme` setting as CSS variables under its plain name (revalidated); the shell links the
 * same stylesheet under its content-hashed name in the static folder (immutable).
 */
export const THEME_CSS_PATH = '/_stcore/theme.css'
/** The app icon, under the base path and at the bare root (where browsers look without a link). */
export const FAVICON_PATH = '/favicon.ico'

type State = 'idle' | 'starting' | 'ready' | 'closing' | 'closed'

/**
 * The bundled page server: HTTP (HTML shell, client bundle, media, health) and the page
 * WebSocket, all under the base path because the gateway forwards full public paths.
 * `GET /` and `/_stcore/health` also answer at the bare root (readiness probes, the supervisor).
 */
export class UiServer extends Lifecycle {
  #state: State = 'idle'
  #site: PageSite
  #theme: GeneratedStyle
  #themePlain: StaticFile
  #csp: string | null
  #icon: AppIcon
  #mapStyle: MapStyles | null
  readonly #opts: UiServerOptions
  readonly #http: Server
  readonly #wss: WebSocketServer
  readonly #sessions: SessionHost
  readonly #media: MediaStore
  readonly #sockets = new Set<Socket>()
  #devError: DevLoadError | null = null
  /** `svc dev`'s type check's last result as a `type_errors` message, sent to every tab that connects (null: no errors reported yet). */
  #typeErrors: string | null = null
  /** Page sockets that could not open a session while the app does not load: told to say hello again when it does. */
  #waitingForLoad: (() => void)[] = []

  constructor(options: UiServerOptions) {
    super()
    this.#opts = options
    this.#site = options.site
    this.#theme = appTheme(options.site)
    this.#themePlain = { ...this.#theme.file, cacheControl: REVALIDATE }
    this.#csp = appPageCsp(options.site.settings)
    this.#icon = loadAppIcon(options.site.settings.icon ?? '')
    this.#mapStyle = pageMapStyle(options.site)
    this.#media = options.media
    this.#sessions = options.sessions
    // A handler that throws answers 500 and the server goes on: no request can take it down.
    this.#http = http.createServer((req, res) => {
      this.#onRequest(req, res).catch((err: unknown) => answerInternalError(req, res, err, this.#opts.logger))
    })
    this.#http.on('connection', (s) => {
      this.#sockets.add(s)
      s.on('close', () => this.#sockets.delete(s))
    })
    // The size is checked on each frame's announced length, before its payload is read (close 1009
    // past it). UTF-8 is checked once, where the message is decoded (a page thread; the gateway
    // in front checks it too): not here, where every session's messages pass.
    this.#wss = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes, skipUTF8Validation: true })
    this.#http.on('upgrade', (req, socket, head) => {
      // A client that resets mid-handshake must not become an uncaught 'error' event.
      socket.on('error', () => socket.destroy())
      try {
        this.#onUpgrade(req, socket as Socket, head)
      } catch (err) {
        refuseUpgrade(req, socket as Socket, err, this.#opts.logger)
      }
    })
  }

  /** Listen; resolves with the bound port. */
  async start(): Promise<number> {
    if (this.#state !== 'idle') throw new SvcError('SVC_ERR_UI_SIDECAR_START', `bug: UiServer.start() in state ${this.#state}`)
    this.#state = 'starting'
    await new Promise<void>((resolve, reject) => {
      this.#http.once('error', reject)
      const listening = (): void => {
        this.#http.off('error', reject)
        resolve()
      }
      if (this.#opts.listenFd !== undefined) this.#http.listen({ fd: this.#opts.listenFd }, listening)
      else this.#http.listen(this.#opts.port, this.#opts.host, listening)
    })
    this.#state = 'ready'
    return (this.#http.address() as AddressInfo).port
  }

  /** The app changed (a dev reload): its title, theme, CSP and pages as the shell shows them. */
  setSite(site: PageSite): void {
    this.#site = site
    this.#theme = appTheme(site)
    this.#themePlain = { ...this.#theme.file, cacheControl: REVALIDATE }
    this.#csp = appPageCsp(site.settings)
    this.#icon = loadAppIcon(site.settings.icon ?? '')
    this.#mapStyle = pageMapStyle(site)
  }

  /**
   * `svc dev --reload`: the app's last save did not load (null: it loads again). Every open tab
   * shows it over the page, which keeps running the previous version; tabs opened meanwhile get
   * it when they connect.
   */
  showDevError(error: DevLoadError | null): void {
    if (error === null && this.#devError === null) return
    this.#devError = error
    const message = devErrorMessage(error)
    for (const ws of this.#wss.clients) if (ws.readyState === WebSocket.OPEN) ws.send(message)
    if (error !== null) return
    const waiting = this.#waitingForLoad
    this.#waitingForLoad = []
    for (const retry of waiting) retry()
  }

  /**
   * `svc dev`: the type check's latest result. Every open tab shows the errors (the code still
   * runs); tabs opened meanwhile get them when they connect; `total: 0` clears them.
   */
  showTypeErrors(report: DevTypeErrors): void {
    const message = JSON.stringify({ v: UI_PROTOCOL_VERSION, type: 'type_errors', errors: report.errors, total: report.total } satisfies ServerMessage)
    // Kept when it clears too: a tab that reconnects (also to a new page server) may still show errors fixed meanwhile.
    this.#typeErrors = message
    for (const ws of this.#wss.clients) if (ws.readyState === WebSocket.OPEN) ws.send(message)
  }

  /** Close page sockets (1001), end sessions (their snapshots written), stop listening; sockets still open after `PAGE_SERVER_FORCE_CLOSE_MS` are dropped. */
  protected async drain(): Promise<void> {
    this.#state = 'closing'
    for (const ws of this.#wss.clients) ws.close(1001, 'server shutting down')
    await this.#sessions.close()
    const closed = this.#stopListening()
    this.#http.closeIdleConnections()
    const force = setTimeout(() => this.#dropSockets(), PAGE_SERVER_FORCE_CLOSE_MS)
    force.unref()
    await closed
    clearTimeout(force)
    this.#wss.close()
    this.#state = 'closed'
  }

  /** Drop every socket now and end sessions without writing them; sessions still opening fail with `err`. */
  protected async abort(err: Error | undefined): Promise<void> {
    this.#state = 'closing'
    const closed = this.#stopListening()
    this.#dropSockets()
    await this.#sessions.destroy(err)
    await closed
    this.#wss.close()
    this.#state = 'closed'
  }

  #stopListening(): Promise<void> {
    return new Promise<void>((resolve) => this.#http.close(() => resolve()))
  }

  #dropSockets(): void {
    for (const ws of this.#wss.clients) ws.terminate()
    for (const s of this.#sockets) s.destroy()
  }

  #under(path: string, suffix: string): boolean {
    return path === this.#opts.basePath + suffix || path === suffix
  }

  async #onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?', 1)[0]!
    const base = this.#opts.basePath
    if (path === base + UPLOAD_PATH) {
      await handleUpload(req, res, { sessions: this.#sessions, maxBytes: this.#opts.maxUploadBytes })
      return
    }
    if (path === base + COOKIE_PATH && this.#opts.cookieKeys) {
      await handleCookieTicket(req, res, this.#opts.cookieKeys)
      return
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n')
      return
    }
    if (this.#under(path, HEALTH)) {
      const ok = this.#state === 'ready'
      res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(ok ? 'ok' : 'shutting down')
      return
    }
    if (path === base + THEME_CSS_PATH) {
      sendStatic(req, res, this.#themePlain)
      return
    }
    if (this.#under(path, FAVICON_PATH)) {
      this.#serveIcon(req, res)
      return
    }
    const staticPrefix = base + STATIC_PREFIX
    if (path.startsWith(staticPrefix)) {
      let name: string
      try {
        name = decodeURIComponent(path.slice(staticPrefix.length))
      } catch {
        res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('bad path encoding\n')
        return
      }
      const file = this.#staticFile(name) ?? (this.#opts.assets.refresh() ? this.#staticFile(name) : undefined)
      if (!file) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found (is the client built? run: npm run build)\n')
        return
      }
      sendStatic(req, res, file)
      return
    }
    if (path.startsWith(base + COMPONENT_PREFIX)) {
      await serveComponentFile(req, res, path.slice(base.length + COMPONENT_PREFIX.length), this.#opts.logger)
      return
    }
    const mediaPrefix = base + MEDIA_PREFIX
    if (path.startsWith(mediaPrefix)) {
      const entry = this.#media.get(path.slice(mediaPrefix.length))
      if (!entry) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('media not found (it expired; rerun the page)\n')
        return
      }
      res.writeHead(200, { ...entry.headers, 'content-length': entry.bytes.byteLength, 'cache-control': 'private, max-age=31536000, immutable' })
      res.end(req.method === 'HEAD' ? undefined : entry.bytes)
      return
    }
    if (path === '/' || path === base || path.startsWith(base + '/')) {
      const pool = this.#opts.pool
      // readyz probes GET / (no HTML asked): a page server whose every thread is stalled cannot take a new session.
      if (pool?.stalled() && !acceptsHtml(req) && (path === '/' || path === base || path === base + '/')) {
        res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end('page threads stalled: every page thread has been busy past ui_run_timeout_s\n')
        return
      }
      const isPage = this.#isPage(path, req.url ?? '')
      // A browser connects its page socket next: a page thread loads the app meanwhile. Probes
      // (readyz's GET /, monitors) do not ask for HTML and leave an idle server idle.
      if (isPage && req.method === 'GET' && acceptsHtml(req)) pool?.warm()
      // Same shell either way (the client shows the not-found view), but crawlers and monitors see the 404.
      await sendCompressible(req, res, isPage ? 200 : 404, this.#shellHeaders(), this.#shell())
      return
    }
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`not found: this UI is served under ${base}/\n`)
  }

  #serveIcon(req: IncomingMessage, res: ServerResponse): void {
    const icon = this.#icon
    if (icon.kind === 'redirect') {
      res.writeHead(302, { location: icon.url, 'cache-control': 'no-cache' }).end()
      return
    }
    // Not content-hashed (the setting can change between deploys): browsers revalidate after an hour.
    const headers: Record<string, string | number> = { 'content-type': icon.type, 'content-length': icon.body.byteLength, 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' }
    // An SVG opened as a page could run script: never from our origin.
    if (icon.type === 'image/svg+xml') headers['content-security-policy'] = MEDIA_CSP
    res.writeHead(200, headers)
    res.end(req.method === 'HEAD' ? undefined : icon.body)
  }

  /** A client file, or the theme stylesheet under its hashed name. */
  #staticFile(name: string): StaticFile | undefined {
    return this.#opts.assets.get(name) ?? (name === this.#theme.name ? this.#theme.file : undefined)
  }

  #shell(): string {
    const assets = this.#opts.assets
    assets.refresh()
    const settings = this.#site.settings
    const base = this.#opts.basePath
    return renderShell({
      basePath: base,
      title: settings.title,
      themeBase: settings.theme.base ?? 'system',
      assets: {
        appJs: assets.entry('app.js') ?? 'app.js',
        appCss: assets.entry('app.css') ?? 'app.css',
        themeJs: assets.entry('theme.js') ?? 'theme.js',
        themeCss: this.#theme.empty ? null : this.#theme.name,
      },
      chunkStyles: assets.chunkStyles,
      mapStyle: this.#mapStyle,
      // Browsers ask /favicon.ico by themselves: svc's own icon is linked only under a root path,
      // where that request may not reach this server (the shell stays a link shorter at the root).
      ...((settings.icon ?? '') === '' && base === '' ? {} : { icon: this.#icon.kind === 'redirect' ? { href: this.#icon.url, type: null } : { href: base + FAVICON_PATH, type: this.#icon.type } }),
    })
  }

  #shellHeaders(): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }
    if (this.#csp !== null) headers['content-security-policy'] = this.#csp
    return headers
  }

  /** Whether the page session would find a page for this browser path (`/` always shows one or the empty-app view). */
  #isPage(path: string, url: string): boolean {
    const pagePath = stripBase(path, this.#opts.basePath)
    if (pagePath === '/' || this.#site.pages.forPath(pagePath) !== undefined) return true
    const deepLink = new URLSearchParams(url.slice(path.length + 1)).get('page')
    return deepLink !== null && this.#site.pages.byDeepLink(deepLink) !== undefined
  }

  #onUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    const path = (req.url ?? '/').split('?', 1)[0]!
    if (this.#state !== 'ready' || !this.#under(path, STREAM)) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      try {
        servePageSocket(ws, req, {
          sessions: this.#sessions,
          basePath: this.#opts.basePath,
          logger: this.#opts.logger,
          maxMessageBytes: this.#opts.maxMessageBytes,
          loadFailing: () => this.#devError !== null,
          whenLoads: (then) => void this.#waitingForLoad.push(then),
          trustProxy: this.#site.settings.trust_proxy ?? false,
        })
      } catch (err) {
        this.#opts.logger.error({ err }, 'ui page socket could not be served')
        ws.close(1011, 'internal error')
        return
      }
      if (this.#devError !== null) ws.send(devErrorMessage(this.#devError))
      if (this.#typeErrors !== null) ws.send(this.#typeErrors)
    })
  }
}

/** The basemap styles the page must be told about, or null when they are svc's defaults (the map chunk knows those). */
function pageMapStyle(app: { settings: PageApp['settings'] }): MapStyles | null {
  const light = app.settings.ui_map_style_url ?? DEFAULT_MAP_STYLE_URL
  const dark = app.settings.ui_map_style_url_dark ?? ''
  return light === DEFAULT_MAP_STYLE_URL && dark === '' ? null : mapStyles(light, dark)
}

function devErrorMessage(error: DevLoadError | null): string {
  return JSON.stringify({ v: UI_PROTOCOL_VERSION, type: 'dev_error', error } satisfies ServerMessage)
}

/** The app's `theme` setting as a stylesheet, named by its content. */
export function appTheme(app: { settings: PageApp['settings'] }): GeneratedStyle {
  return generatedStyle(THEME_STYLE_PREFIX, themeCss(app.settings.theme))
}

/** A browser navigation (`Accept: text/html,…`), not a probe or a script (which accept anything). */
function acceptsHtml(req: IncomingMessage): boolean {
  return req.headers.accept?.includes('text/html') ?? false
}
