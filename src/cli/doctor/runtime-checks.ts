import { fail, pass, warn, type Check, type CheckRow, type DoctorContext, type SettingsCheck } from './types.js'

/** Oldest Node major svc supports (package.json engines). */
export const MIN_NODE_MAJOR = 20

/** The runtime dependencies svc imports at start; one missing means a broken install. */
export const RUNTIME_DEPENDENCIES = [
  'fastify',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  'undici',
  'ws',
  'pino',
  'zod',
  'clipanion',
  'execa',
  'tree-kill',
  'chokidar',
  'tsx/esm/api',
] as const

export function nodeVersionRow(version: string): CheckRow {
  const major = Number(version.replace(/^v/, '').split('.')[0])
  if (!Number.isInteger(major) || major < MIN_NODE_MAJOR) {
    return fail('node_version', `v${version.replace(/^v/, '')}: svc needs Node.js >= ${MIN_NODE_MAJOR}; upgrade Node`)
  }
  return pass('node_version', `v${version.replace(/^v/, '')}`)
}

export const nodeVersion: Check = () => nodeVersionRow(process.versions.node)

async function missingModules(importModule: (s: string) => Promise<unknown>, names: readonly string[]): Promise<string[]> {
  const missing: string[] = []
  for (const name of names) {
    try {
      await importModule(name)
    } catch (err) {
      missing.push(`${name} (${(err as Error).message.split('\n')[0]})`)
    }
  }
  return missing
}

export const dependencies: Check = async (ctx) => {
  const missing = await missingModules(ctx.importModule, RUNTIME_DEPENDENCIES)
  if (missing.length > 0) return fail('dependencies', `cannot import ${missing.join('; ')}; reinstall with "npm install"`)
  return pass('dependencies', `${RUNTIME_DEPENDENCIES.map((n) => n.split('/esm')[0]).join(', ')} importable`)
}

/** Non-empty `SVC_JWT_*` / `SVC_OIDC_*` variables: the auth group is in use. */
export function authEnvNames(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(env)
    .filter((k) => (k.startsWith('SVC_JWT_') || k.startsWith('SVC_OIDC_')) && (env[k] ?? '') !== '')
    .sort()
}

export const jwtClockSkew = (ctx: DoctorContext): CheckRow => {
  const names = authEnvNames(ctx.env)
  if (names.length === 0) return pass('jwt_clock_skew', 'no SVC_JWT_*/SVC_OIDC_* settings')
  const leeway = ctx.settings?.jwt_leeway_seconds ?? 0
  return warn(
    'jwt_clock_skew',
    `${names.join(', ')} set: token exp/nbf checks need this host's clock in sync with the issuer (NTP); jwt_leeway_seconds=${leeway}`,
  )
}

export const authExtra: Check = async (ctx) => {
  const names = authEnvNames(ctx.env)
  if (names.length === 0) return null
  const missing = await missingModules(ctx.importModule, ['jose'])
  if (missing.length > 0) {
    return fail('svc_auth_extra', `${names.join(', ')} set but the optional auth dependency is missing: ${missing[0]}; run "npm install jose"`)
  }
  return pass('svc_auth_extra', 'jose importable')
}

export const metricsExtra: SettingsCheck = async (ctx) => {
  if (!ctx.settings.enable_gateway_prometheus_metrics) return null
  const missing = await missingModules(ctx.importModule, ['prom-client'])
  if (missing.length > 0) {
    return fail('svc_metrics_extra', `gateway metrics are enabled but the optional metrics dependency is missing: ${missing[0]}; run "npm install prom-client"`)
  }
  return pass('svc_metrics_extra', 'prom-client importable')
}
