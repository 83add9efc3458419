import { execaSync } from 'execa'
import { request } from 'undici'
import { z } from '../internal/zod.js'
import { SvcError } from '../errors.js'

/** The fields of an OpenID Provider's discovery document svc uses; the rest are kept. */
export const OidcDiscovery = z.looseObject({
  issuer: z.string().min(1),
  authorization_endpoint: z.string().url(),
  token_endpoint: z.string().url(),
  jwks_uri: z.string().url(),
  id_token_signing_alg_values_supported: z.array(z.string()).optional(),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
})
export type OidcDiscovery = z.infer<typeof OidcDiscovery>

export function discoveryUrl(issuer: string): string {
  return issuer.replace(/\/+$/, '') + '/.well-known/openid-configuration'
}

/** Validate a fetched document; its `issuer` must equal the configured one (OIDC Discovery §4.3). */
export function parseDiscovery(issuer: string, url: string, text: string): OidcDiscovery {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (err) {
    throw new SvcError('SVC_ERR_AUTH_IDP', `OIDC discovery ${url} did not return JSON`, { cause: err })
  }
  const parsed = OidcDiscovery.safeParse(data)
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => i.path.join('.') || '(root)').join(', ')
    throw new SvcError('SVC_ERR_AUTH_IDP', `OIDC discovery ${url} is missing or has invalid field(s): ${fields}`)
  }
  const strip = (v: string) => v.replace(/\/+$/, '')
  if (strip(parsed.data.issuer) !== strip(issuer)) {
    throw new SvcError(
      'SVC_ERR_AUTH_CONFIG',
      `OIDC discovery ${url} names issuer ${JSON.stringify(parsed.data.issuer)}, not the configured ` +
        `${JSON.stringify(issuer)}; set GenericOIDCClientConfig.issuer to the provider's exact issuer`,
    )
  }
  return parsed.data
}

export async function fetchDiscovery(issuer: string, timeoutMs: number): Promise<OidcDiscovery> {
  const url = discoveryUrl(issuer)
  let status: number
  let text: string
  try {
    const res = await request(url, {
      headers: { accept: 'application/json' },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    })
    status = res.statusCode
    text = await res.body.text()
  } catch (err) {
    throw new SvcError('SVC_ERR_AUTH_IDP', `OIDC discovery ${url} failed: ${(err as Error).message}`, { cause: err })
  }
  if (status < 200 || status > 299) throw new SvcError('SVC_ERR_AUTH_IDP', `OIDC discovery ${url} answered HTTP ${status}`)
  return parseDiscovery(issuer, url, text)
}

// Runs in a short-lived child node process: prints the body, or exits non-zero with the reason.
const CHILD_SCRIPT = `
const [url, ms] = process.argv.slice(1)
try {
  const res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(Number(ms)) })
  const text = await res.text()
  if (!res.ok) { process.stderr.write('answered HTTP ' + res.status); process.exit(3) }
  process.stdout.write(text)
} catch (err) { process.stderr.write('failed: ' + (err.cause?.message ?? err.message)); process.exit(4) }
`

/**
 * Fetch the discovery document synchronously, for apps that configure auth while their module
 * loads and cannot `await`. The fetch runs in a child node process (execa sync), so the event
 * loop of this process is blocked for at most `timeoutMs` plus the child's start-up.
 */
export function fetchDiscoverySync(issuer: string, timeoutMs: number): OidcDiscovery {
  const url = discoveryUrl(issuer)
  const result = execaSync(process.execPath, ['--input-type=module', '-e', CHILD_SCRIPT, url, String(timeoutMs)], {
    reject: false,
    timeout: timeoutMs + 5_000,
    stripFinalNewline: false,
  })
  if (result.exitCode !== 0 || result.timedOut) {
    const reason = result.timedOut ? `timed out after ${timeoutMs} ms` : String(result.stderr).trim() || result.shortMessage
    throw new SvcError('SVC_ERR_AUTH_IDP', `OIDC discovery ${url} ${reason}`)
  }
  return parseDiscovery(issuer, url, String(result.stdout))
}
