import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'

/**
 * The API hop: the inner Fastify app served in-process. Routes are declared relative to the
 * mount, so the request URL is rewritten to the mount-relative path before Fastify routes it;
 * the public path stays on `req.originalUrl`, which Fastify itself exposes as
 * `request.originalUrl` (the field it sets when it rewrites a URL).
 */
export type ApiHop = (req: IncomingMessage, res: ServerResponse, apiPath: string, query: string) => void

export async function createApiHop(api: FastifyInstance): Promise<ApiHop> {
  await api.ready()
  // Fastify's router lookup is a plain function that uses no `this`: safe to hold on its own.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const route = api.routing as (req: IncomingMessage, res: ServerResponse) => void
  return (req, res, apiPath, query) => {
    ;(req as IncomingMessage & { originalUrl?: string }).originalUrl = req.url
    req.url = query === '' ? apiPath : `${apiPath}?${query}`
    route(req, res)
  }
}
