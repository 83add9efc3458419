import { normalizeForwardAllowlist } from '../../settings/forward-headers.js'
import { advise, fail, pass, warn, type CheckRow, type SettingsContext } from './types.js'

/** Below this, an ordinary slow page render times out at the gateway. */
const MIN_READ_TIMEOUT_S = 5

function isUnder(path: string, mount: string): boolean {
  return path === mount || path.startsWith(mount + '/')
}

export const metricsPath = ({ settings }: SettingsContext): CheckRow => {
  const name = 'metrics_path'
  const path = settings.gateway_prometheus_metrics_path
  if (!settings.enable_gateway_prometheus_metrics) return pass(name, `metrics disabled (path would be ${settings.root_path}${path})`)
  if (isUnder(path, settings.api_mount_path)) {
    return warn(
      name,
      `${path} is under api_mount_path ${settings.api_mount_path}: the API owns it, so metrics are disabled; set SVC_GATEWAY_PROMETHEUS_METRICS_PATH outside the API`,
    )
  }
  return pass(name, `GET ${settings.root_path}${path} (served by the gateway, not the API)`)
}

export const upstreamTimeouts = ({ settings, strict }: SettingsContext): CheckRow => {
  const name = 'gateway_upstream_timeouts'
  const connect = settings.gateway_upstream_connect_timeout_s
  const read = settings.gateway_upstream_read_timeout_s
  if (read < MIN_READ_TIMEOUT_S) {
    return advise(strict, name, `HTTP read timeout=${read}s is below ${MIN_READ_TIMEOUT_S}s: slow UI responses will end in 502; raise SVC_GATEWAY_UPSTREAM_READ_TIMEOUT_S`)
  }
  return pass(name, `HTTP connect timeout=${connect}s; read timeout=${read}s`)
}

/** Rows `gateway_forward_client_headers` and, when the allowlist names refused headers, `gateway_forward_rejected_names`. */
export const forwardHeaders = ({ settings, strict }: SettingsContext): CheckRow[] => {
  const listed = settings.gateway_forward_client_headers
  let result
  try {
    result = normalizeForwardAllowlist(listed)
  } catch (err) {
    return [fail('gateway_forward_client_headers', (err as Error).message)]
  }
  const rows: CheckRow[] = []
  const ignored = result.invalid.length > 0 ? `; ignored (not header names): ${result.invalid.join(', ')}` : ''
  if (result.allowed.length === 0) {
    rows.push(pass('gateway_forward_client_headers', `no extra client headers allowlisted (default)${ignored}`))
  } else {
    rows.push(
      warn(
        'gateway_forward_client_headers',
        `${result.allowed.length} header name(s) allowlisted for the UI sidecar's HTTP hop: ${result.allowed.join(', ')}${ignored}`,
      ),
    )
  }
  if (result.rejected.length > 0) {
    rows.push(
      advise(
        strict,
        'gateway_forward_rejected_names',
        `allowlist contained rejected names ${result.rejected.join(', ')} — never forwarded (hop-by-hop, framing, forwarding or credential headers)`,
      ),
    )
  }
  return rows
}
