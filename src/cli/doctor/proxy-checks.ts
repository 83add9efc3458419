import { advise, fail, pass, publicApiPrefix, type CheckRow, type SettingsContext } from './types.js'

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])
const MIB = 1024 * 1024

export const rootPath = ({ settings }: SettingsContext): CheckRow =>
  pass('root_path', settings.root_path === '' ? '(empty)' : `${settings.root_path} (API at ${publicApiPrefix(settings)})`)

export const trustProxy = ({ settings, strict }: SettingsContext): CheckRow => {
  const name = 'trust_proxy'
  if (!settings.trust_proxy) return pass(name, 'off (clients\' X-Forwarded-* are replaced by the gateway\'s own view)')
  if (!LOOPBACK.has(settings.gateway_host)) {
    return advise(
      strict,
      name,
      `on while binding ${settings.gateway_host}: clients that reach the port directly can forge X-Forwarded-*; expose svc only through the proxy (firewall, network policy) or bind 127.0.0.1`,
    )
  }
  return pass(name, 'on (X-Forwarded-* from the proxy in front are believed)')
}

export const proxyHeaders = ({ settings, strict }: SettingsContext): CheckRow => {
  const name = 'proxy_headers'
  if (settings.root_path === '') return pass(name, 'no root_path; proxy headers optional')
  if (settings.trust_proxy) return pass(name, 'trust_proxy enabled for sub-path deployment')
  return advise(
    strict,
    name,
    `root_path ${settings.root_path} is set but trust_proxy is off: the public host and scheme are not known; run with --proxy-headers or SVC_TRUST_PROXY=1`,
  )
}

export const publicBaseUrl = ({ settings, strict }: SettingsContext): CheckRow => {
  const name = 'public_base_url'
  const raw = settings.public_base_url
  if (raw === '') {
    if (settings.root_path === '') return pass(name, '(empty)')
    return advise(
      strict,
      name,
      `empty while root_path is ${settings.root_path}: OAuth redirect URLs must be derived from request headers; set SVC_PUBLIC_BASE_URL=https://<host>${settings.root_path}`,
    )
  }
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return fail(name, `${JSON.stringify(raw)} is not a valid absolute URL (e.g. https://example.com${settings.root_path})`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail(name, `${JSON.stringify(raw)} is not an http(s) URL`)
  const path = url.pathname.replace(/\/+$/, '')
  if (path !== settings.root_path) {
    return advise(strict, name, `path '${path || '/'}' does not match root_path '${settings.root_path || '/'}'`)
  }
  return pass(name, raw)
}

export const maxProxyBody = ({ settings, strict }: SettingsContext): CheckRow => {
  const name = 'gateway_max_proxy_body'
  const limit = settings.gateway_max_proxy_request_body_bytes
  if (limit === 0) {
    if (settings.trust_proxy) {
      return advise(strict, name, 'unlimited (0) while trust_proxy is on: set SVC_GATEWAY_MAX_PROXY_REQUEST_BODY_BYTES, or enforce a limit at the proxy')
    }
    return pass(name, 'unlimited (0)')
  }
  return pass(name, limit % MIB === 0 ? `${limit / MIB} MiB` : `${limit} bytes`)
}

export const readinessRoute = ({ settings }: SettingsContext): CheckRow => {
  const api = publicApiPrefix(settings)
  return pass('readiness_route', `readiness probe GET ${api}/readyz (hidden from OpenAPI; 503 until the UI sidecar answers); liveness GET ${api}/healthz`)
}

export const l7Websocket = ({ settings }: SettingsContext): CheckRow =>
  pass(
    'l7_websocket',
    `a proxy in front must pass WebSocket upgrades (HTTP/1.1, Upgrade and Connection headers) for ${settings.root_path}/_stcore/stream`,
  )
