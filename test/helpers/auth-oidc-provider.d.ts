// oidc-provider ships no types; the tests use a small part of it.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'
  interface KoaContext {
    path: string
    method: string
    body: unknown
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    callback(): (req: IncomingMessage, res: ServerResponse) => void
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void
    on(event: string, listener: (...args: unknown[]) => void): void
    Grant: new (init: { accountId: string; clientId: string }) => {
      addOIDCScope(scope: string): void
      addOIDCClaims(claims: string[]): void
      save(): Promise<string>
    }
  }
}
