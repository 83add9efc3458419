import { createServer } from 'node:http'
import Provider from 'oidc-provider'

/**
 * A throw-away OpenID Provider for trying examples/auth locally (oidc-provider's development
 * login: any user name, any password). Never use it for anything real.
 *   npx tsx examples/auth/dev-idp.ts   → http://127.0.0.1:9000
 */
const port = Number(process.env.IDP_PORT ?? 9000)
const appBase = process.env.SVC_PUBLIC_BASE_URL ?? 'http://127.0.0.1:8000'
const issuer = `http://127.0.0.1:${port}`

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: 'svc-example',
      client_secret: 'svc-example-secret',
      redirect_uris: [`${appBase}/api/auth/callback`],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
  ],
  cookies: { keys: ['dev-only-cookie-key'] },
  features: { devInteractions: { enabled: true } },
  pkce: { required: () => true },
})

createServer(provider.callback()).listen(port, '127.0.0.1', () => {
  console.log(`dev IdP at ${issuer}; client svc-example / svc-example-secret; callback ${appBase}/api/auth/callback`)
})
