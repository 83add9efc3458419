import { gatewayBind } from './bind-check.js'
import { internalApiBase, publicBaseUrlPrecedence } from './env-checks.js'
import { forwardHeaders, metricsPath, upstreamTimeouts } from './gateway-checks.js'
import { l7Websocket, maxProxyBody, proxyHeaders, publicBaseUrl, readinessRoute, rootPath, trustProxy } from './proxy-checks.js'
import { cookieSecretShared, redisReachable } from './redis-check.js'
import { secretsRows } from './secrets-check.js'
import { authExtra, dependencies, jwtClockSkew, metricsExtra } from './runtime-checks.js'
import { needsSettings, type Check } from './types.js'
import { uiUpstreamState } from './upstream-state-check.js'

/** The checks after node_version, settings and import_target, in the order rows are printed. */
export const CHECKS: readonly Check[] = [
  dependencies,
  needsSettings(gatewayBind, 'gateway_bind'),
  needsSettings(internalApiBase, 'SVC_INTERNAL_API_BASE'),
  jwtClockSkew,
  authExtra,
  needsSettings(metricsExtra),
  publicBaseUrlPrecedence,
  needsSettings(rootPath, 'root_path'),
  needsSettings(trustProxy, 'trust_proxy'),
  needsSettings(proxyHeaders, 'proxy_headers'),
  needsSettings(publicBaseUrl, 'public_base_url'),
  needsSettings(maxProxyBody, 'gateway_max_proxy_body'),
  needsSettings(metricsPath, 'metrics_path'),
  needsSettings(readinessRoute, 'readiness_route'),
  needsSettings(l7Websocket, 'l7_websocket'),
  needsSettings(upstreamTimeouts, 'gateway_upstream_timeouts'),
  needsSettings(forwardHeaders, 'gateway_forward_client_headers'),
  uiUpstreamState,
  needsSettings(redisReachable, 'redis'),
  needsSettings(cookieSecretShared),
  secretsRows,
]
