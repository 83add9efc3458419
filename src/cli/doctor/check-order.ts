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
  needsSettings(gatewayBind),
  needsSettings(internalApiBase),
  jwtClockSkew,
  authExtra,
  needsSettings(metricsExtra),
  publicBaseUrlPrecedence,
  needsSettings(rootPath),
  needsSettings(trustProxy),
  needsSettings(proxyHeaders),
  needsSettings(publicBaseUrl),
  needsSettings(maxProxyBody),
  needsSettings(metricsPath),
  needsSettings(readinessRoute),
  needsSettings(l7Websocket),
  needsSettings(upstreamTimeouts),
  needsSettings(forwardHeaders),
  uiUpstreamState,
  needsSettings(redisReachable),
  needsSettings(cookieSecretShared),
  secretsRows,
]
