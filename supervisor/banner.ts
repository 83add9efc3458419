import type { ResolvedSettings } from '../src/settings/schema.js'

/** Lines the supervisor prints on stderr for humans; logs go to stdout as JSON. */
function displayHost(host: string): string {
  if (host === '' || host === '0.0.0.0') return '127.0.0.1'
  if (host === '::' || host === '[::]') return '[::1]'
  return bracketed(host)
}

/** An IPv6 literal in brackets, as it is written before `:port`. */
function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}

export function publicOrigin(host: string, port: number): string {
  return `http://${displayHost(host)}:${port}`
}

/** The bound address as `host:port` (`0.0.0.0:8080`, `[::]:8080`), as `svc status` shows it beside the URL. */
export function bindAddress(host: string, port: number): string {
  return `${bracketed(host || '0.0.0.0')}:${port}`
}

/** True for a bind on every interface, where the printed URL is only the loopback one. */
function allInterfaces(host: string): boolean {
  return host === '' || host === '0.0.0.0' || host === '::' || host === '[::]'
}

export function listeningLine(s: ResolvedSettings, host: string, port: number, upstream: string): string {
  const origin = publicOrigin(host, port)
  const bound = allInterfaces(host) ? `; bound to ${bindAddress(host, port)}, every interface` : ''
  return `svc: listening on ${origin}${s.root_path}/ (api ${origin}${s.root_path}${s.api_mount_path}, ui sidecar ${upstream}, ${s.workers} gateway worker${s.workers === 1 ? '' : 's'}${bound})\n`
}

/** `[svc-debug] …` in debug mode (spec: derived internal API base and mount). */
export function debugLine(s: ResolvedSettings, internalApiBase: string): string {
  return `[svc-debug] internal_api_base=${internalApiBase} api_mount_path=${s.api_mount_path} root_path=${JSON.stringify(s.root_path)} trust_proxy=${s.trust_proxy}\n`
}

/** Banner for path-proxy hosting (Posit Workbench / Connect style), `svc workbench`. */
export function workbenchBanner(s: ResolvedSettings, host: string, port: number): string {
  const origin = publicOrigin(host, port)
  const lines = [
    '[svc] Workbench mode: X-Forwarded-* headers are trusted (proxy headers on); trust only your edge reverse proxy.',
    `[svc] App title: ${s.title}`,
    `[svc] Open in browser (loopback): ${origin}${s.root_path}/`,
    `[svc] API liveness: ${origin}${s.root_path}${s.api_mount_path}/healthz`,
    `[svc] API readiness: ${origin}${s.root_path}${s.api_mount_path}/readyz`,
    `[svc] API docs: ${origin}${s.root_path}${s.api_mount_path}/docs`,
  ]
  if (s.root_path === '') {
    lines.push('[svc] No root path set: if the proxy serves this app under a sub-path, set SVC_ROOT_PATH (or --root-path) to it.')
  }
  if (s.public_base_url) lines.push(`[svc] OAuth / canonical public URL: ${s.public_base_url}`)
  lines.push('[svc] Make sure only the proxy can reach this port: bind loopback (--host 127.0.0.1) or firewall it.')
  return lines.join('\n') + '\n'
}
