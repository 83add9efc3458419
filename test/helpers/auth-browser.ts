import { request } from 'undici'

export interface Hop {
  url: string
  status: number
  location: string | undefined
  headers: Record<string, string | string[] | undefined>
  body: string
}

/**
 * A minimal browser for HTTP-level login tests: keeps cookies per host:port, follows redirects
 * until `stop(url)` says so, and submits the IdP's login form.
 */
export class TestBrowser {
  readonly #jar = new Map<string, Map<string, string>>()

  cookies(url: string): Map<string, string> {
    const key = new URL(url).host
    let jar = this.#jar.get(key)
    if (!jar) this.#jar.set(key, (jar = new Map()))
    return jar
  }

  async fetch(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Hop> {
    const jar = this.cookies(url)
    const headers: Record<string, string> = {}
    if (jar.size > 0) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
    let body: string | undefined
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      body = new URLSearchParams(init.form).toString()
    }
    const res = await request(url, { method: (init.method ?? (body ? 'POST' : 'GET')) as 'GET', headers, body })
    const set = res.headers['set-cookie']
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair = '', ...attrs] = line.split(';')
      const eq = pair.indexOf('=')
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || /expires=Thu, 01 Jan 1970/i.test(line)
      if (expired) jar.delete(pair.slice(0, eq).trim())
      else jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim())
    }
    const location = res.headers.location
    return {
      url,
      status: res.statusCode,
      location: typeof location === 'string' ? new URL(location, url).toString() : undefined,
      headers: res.headers,
      body: await res.body.text(),
    }
  }

  /** Follow redirects from `url`; stops at a non-redirect or before fetching a URL `stop` matches. */
  async follow(url: string, stop: (url: string) => boolean = () => false, init: { form?: Record<string, string> } = {}): Promise<Hop> {
    let hop = await this.fetch(url, init)
    for (let i = 0; i < 20 && hop.location && hop.status >= 300 && hop.status < 400; i++) {
      if (stop(hop.location)) return hop
      hop = await this.fetch(hop.location)
    }
    return hop
  }

  /** Submit oidc-provider's development login form found in `page`. */
  async submitLogin(page: Hop, login: string, stop: (url: string) => boolean): Promise<Hop> {
    const action = /<form[^>]*action="([^"]+)"/.exec(page.body)?.[1]
    if (!action) throw new Error(`no login form at ${page.url} (HTTP ${page.status}): ${page.body.slice(0, 300)}`)
    return this.follow(new URL(action.replace(/&amp;/g, '&'), page.url).toString(), stop, {
      form: { prompt: 'login', login, password: 'any' },
    })
  }
}
