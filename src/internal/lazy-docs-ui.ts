import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { createRequire } from 'node:module'
import type { IncomingMessage, ServerResponse } from 'node:http'

/** Where the docs UI answers, relative to the API mount (`/api/docs`). */
const DOCS_PREFIX = '/docs'

/**
 * The docs UI (@fastify/swagger-ui with @fastify/static and yaml: about 40 modules and 50-90 ms
 * of a gateway worker's start on a 2-core VM) loads on the first request under `/docs`, not
 * when the API is readied: most requests a worker serves never touch it. It lives in a Fastify
 * instance of its own, built then, whose `swagger()` is the app's; `app.api` carries two
 * hidden routes that hand the raw request over to it. `publicMount` is `{root_path}{api_mount_path}`;
 * `prepare` runs first (what the app's `swagger()` needs loaded).
 */
export function serveDocsUiOnFirstUse(api: FastifyInstance, publicMount: string, prepare: () => Promise<void>): void {
  let docs: Promise<FastifyInstance> | undefined
  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    docs ??= prepare().then(() => buildDocsInstance(api, publicMount)).catch((err: unknown) => {
      docs = undefined
      throw err
    })
    const instance = await docs
    // What the API's hooks set on this reply (X-Request-ID, CORS) is written by the docs instance.
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value)
    reply.hijack()
    ;(instance.routing as (req: IncomingMessage, res: ServerResponse) => void)(request.raw, reply.raw)
  }
  api.get(DOCS_PREFIX, { schema: { hide: true } }, handler)
  api.get(`${DOCS_PREFIX}/*`, { schema: { hide: true } }, handler)
}

async function buildDocsInstance(api: FastifyInstance, publicMount: string): Promise<FastifyInstance> {
  const { fastifySwaggerUi } = await import('@fastify/swagger-ui')
  // Required here, not imported: importing svc loads no Fastify (src/api-instance.ts).
  const { fastify: Fastify } = createRequire(import.meta.url)('fastify') as typeof import('fastify')
  const docs = Fastify()
  docs.decorate('swagger', ((opts?: { yaml?: boolean }) => api.swagger(opts as { yaml: true })) as FastifyInstance['swagger'])
  // Called, not registered: registering checks for @fastify/swagger by plugin name, and the
  // spec comes from the app's instance (the decorator above).
  await docs.register(async (instance) => {
    // The page at `{mount}/docs` (no trailing slash: where `/docs` redirects) links its assets by
    // absolute path; the UI sees the mount-relative URL, so it is told the public mount.
    await (fastifySwaggerUi as unknown as (f: FastifyInstance, o: object) => Promise<void>)(instance, { routePrefix: DOCS_PREFIX, indexPrefix: publicMount })
  })
  await docs.ready()
  return docs
}
