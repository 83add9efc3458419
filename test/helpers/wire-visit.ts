import type { BrowserContext, CDPSession } from 'playwright-core'

/**
 * One visit of a page in Chromium as the network sees it, read from the DevTools protocol:
 * every request with the bytes it took on the wire (headers and body as received, encoded), where
 * it came from (network or the browser's cache), and the page socket's frames. Used by the e2e
 * wire test (bytes, encodings, what a repeat visit fetches) and by `bench:pages` (the same, plus
 * the time to the first chart on a throttled link).
 */
export interface RequestRecord {
  url: string
  /** DevTools resource type: Document, Script, Stylesheet, Fetch, WebSocket, … */
  type: string
  status: number
  /** Bytes received for it (headers + encoded body); 0 when the cache answered. */
  encodedBytes: number
  /** Answered by the browser's memory or disk cache, without a request on the network. */
  fromCache: boolean
  contentEncoding: string | null
  cacheControl: string | null
}

export interface Visit {
  requests: RequestRecord[]
  /** Everything received over HTTP (sum of `encodedBytes`). */
  httpBytes: number
  /** Page-socket frame payloads, both directions. */
  socketBytes: number
  /** ms from the start of navigation until `readySelector` matched. */
  readyMs: number
}

/** A link like the issue's: 10 Mbit/s both ways, 40 ms round trip. */
export const THROTTLED = { offline: false, latency: 40, downloadThroughput: 10_000_000 / 8, uploadThroughput: 10_000_000 / 8 }

export interface VisitOptions {
  /** The page is ready (the chart is drawn) when this matches. */
  readySelector: string
  /** Network conditions for `Network.emulateNetworkConditions`; none = the machine's loopback. */
  throttle?: typeof THROTTLED
  timeoutMs?: number
}

/**
 * Open `url` in a new tab of `context` (so a second visit in the same context finds the first
 * one's cache), wait for `readySelector` and for the network to go quiet, and report.
 */
export async function visit(context: BrowserContext, url: string, opts: VisitOptions): Promise<Visit> {
  const page = await context.newPage()
  try {
    const cdp: CDPSession = await context.newCDPSession(page)
    await cdp.send('Network.enable')
    if (opts.throttle) await cdp.send('Network.emulateNetworkConditions', opts.throttle)
    const records = new Map<string, RequestRecord>()
    let socketBytes = 0
    cdp.on('Network.requestWillBeSent', (e) => {
      records.set(e.requestId, { url: e.request.url, type: e.type ?? 'Other', status: 0, encodedBytes: 0, fromCache: false, contentEncoding: null, cacheControl: null })
    })
    cdp.on('Network.requestServedFromCache', (e) => {
      const r = records.get(e.requestId)
      if (r) r.fromCache = true
    })
    cdp.on('Network.responseReceived', (e) => {
      const r = records.get(e.requestId)
      if (!r) return
      const headers = lowerCased(e.response.headers)
      r.status = e.response.status
      r.fromCache ||= e.response.fromDiskCache === true || e.response.fromPrefetchCache === true
      r.contentEncoding = headers['content-encoding'] ?? null
      r.cacheControl = headers['cache-control'] ?? null
    })
    cdp.on('Network.loadingFinished', (e) => {
      const r = records.get(e.requestId)
      if (r && !r.fromCache) r.encodedBytes = e.encodedDataLength
    })
    cdp.on('Network.webSocketCreated', (e) => {
      records.set(e.requestId, { url: e.url, type: 'WebSocket', status: 101, encodedBytes: 0, fromCache: false, contentEncoding: null, cacheControl: null })
    })
    const frame = (e: { response: { opcode: number; payloadData: string } }): void => {
      socketBytes += e.response.opcode === 1 ? Buffer.byteLength(e.response.payloadData) : Buffer.from(e.response.payloadData, 'base64').byteLength
    }
    cdp.on('Network.webSocketFrameReceived', frame)
    cdp.on('Network.webSocketFrameSent', frame)
    // Timed in the page, when the DOM first matches: no protocol round trip in the figure.
    await page.addInitScript((selector: string) => {
      const w = window as unknown as { __svcReadyAt?: number }
      new MutationObserver((_, observer) => {
        if (document.querySelector(selector) === null) return
        w.__svcReadyAt = performance.now()
        observer.disconnect()
      }).observe(document, { childList: true, subtree: true })
    }, opts.readySelector)
    const timeout = opts.timeoutMs ?? 30_000
    await page.goto(url, { timeout })
    await page.locator(opts.readySelector).first().waitFor({ timeout })
    const readyMs = await page.evaluate(() => (window as unknown as { __svcReadyAt?: number }).__svcReadyAt ?? performance.now())
    await page.waitForLoadState('networkidle', { timeout })
    await cdp.detach()
    const requests = [...records.values()]
    return { requests, httpBytes: requests.reduce((n, r) => n + r.encodedBytes, 0), socketBytes, readyMs }
  } finally {
    await page.close()
  }
}

function lowerCased(headers: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v)]))
}
