import { Agent, request } from 'undici'
import { PageClient, textOf } from './ui-sidecar.js'
import type { ServerMessage } from '../../src/ui/protocol.js'

/**
 * Steady load on a running tree, as production sees it: API requests and page loads on
 * keep-alive connections, counted. A request that errors or answers 5xx is a failure.
 */
export class SteadyLoad {
  ok = 0
  readonly failures: string[] = []
  #running = true
  readonly #loops: Promise<void>[]
  readonly #agent = new Agent({ keepAliveTimeout: 10_000 })

  constructor(origin: string, paths: readonly string[], concurrency = 4) {
    this.#loops = Array.from({ length: concurrency }, (_, i) => this.#loop(origin, paths[i % paths.length]!))
  }

  async #loop(origin: string, path: string): Promise<void> {
    while (this.#running) {
      try {
        const res = await request(`${origin}${path}`, { dispatcher: this.#agent, headers: path.startsWith('/api') ? {} : { accept: 'text/html' } })
        await res.body.dump()
        if (res.statusCode < 500) this.ok++
        else this.failures.push(`${path}: status ${res.statusCode}`)
      } catch (err) {
        this.failures.push(`${path}: ${(err as Error).message}`)
      }
    }
  }

  async stop(): Promise<{ ok: number; failures: string[] }> {
    this.#running = false
    await Promise.all(this.#loops)
    await this.#agent.close()
    return { ok: this.ok, failures: this.failures }
  }
}

/**
 * A page session as a browser keeps it: it says hello again with its session id when told to
 * resume (its page thread was replaced) or when its socket closed (a replaced gateway worker let
 * it go), so its state follows it.
 */
export class BrowserSession {
  #client: PageClient | null = null
  #sessionId: string | null = null
  #render: Awaited<ReturnType<PageClient['render']>> | null = null
  readonly #url: string

  constructor(origin: string) {
    this.#url = `${origin.replace('http:', 'ws:')}/_stcore/stream`
  }

  /** The page's text as last rendered. */
  get text(): string {
    return this.#render ? textOf(this.#render) : ''
  }

  /** Connect (again) and render the page, restoring the session when it has one. */
  async open(timeoutMs = 20_000): Promise<void> {
    await this.#client?.close()
    const client = await new PageClient(this.#url).open()
    this.#client = client
    client.send({ type: 'hello', sessionId: this.#sessionId, path: '/', query: '' })
    const session = await client.next('session', timeoutMs)
    this.#sessionId = session.sessionId
    this.#render = await client.render(timeoutMs)
  }

  /** Click the button labelled `label` and wait for the rerun. */
  async click(label: string): Promise<void> {
    const client = this.#client!
    const button = this.#render?.main.find((n) => n.type === 'button' && n.props.label === label)
    if (!button) throw new Error(`no button ${JSON.stringify(label)} on the page: ${this.text}`)
    client.send({ type: 'widget', id: button.id, value: true })
    this.#render = await client.settled(20_000)
  }

  /** Until the page shows text matching `pattern`: resume or reconnect as a browser does. */
  async until(pattern: RegExp, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!pattern.test(this.text)) {
      if (Date.now() > deadline) throw new Error(`the page never showed ${pattern}; last: ${this.text}`)
      await this.open(Math.max(1_000, deadline - Date.now()))
    }
  }

  /**
   * Until the page shows text matching `pattern` on this socket, as an open tab nobody touches:
   * it says hello again when told to resume (as the browser does) but never reconnects, so the
   * render has to come from the server by itself.
   */
  async untilOnItsOwn(pattern: RegExp, timeoutMs = 20_000): Promise<void> {
    const client = this.#client!
    const deadline = Date.now() + timeoutMs
    const wanted = (m: ServerMessage): m is Extract<ServerMessage, { type: 'render' | 'resume' }> => m.type === 'resume' || (m.type === 'render' && !m.partial)
    while (!pattern.test(this.text)) {
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`the open page never showed ${pattern} by itself; last: ${this.text}`)
      const m = await client.nextWhere(wanted, left, 'render or resume')
      if (m.type === 'resume') client.send({ type: 'hello', sessionId: this.#sessionId, path: '/', query: '' })
      else this.#render = m
    }
  }

  close(): Promise<void> {
    return this.#client?.close() ?? Promise.resolve()
  }
}
