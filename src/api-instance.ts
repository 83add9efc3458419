import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify'
import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import type { Logger } from 'pino'
import { loadOpenApiTransforms, openApiTransform, openApiTransformObject } from './api/openapi.js'
import { createApiRequestLogController } from './logging/api-request-log.js'
import { getRequestId } from './logging/context.js'
import type { ResolvedSettings } from './settings/schema.js'
import { serveDocsUiOnFirstUse } from './internal/lazy-docs-ui.js'
import { markCompilersDefault, withLazySchemaCompilers } from './api/lazy-schema-compilers.js'

// Fastify and its OpenAPI plugin load when an API is built, not when svc is imported: svc's entry
// imports this module in every process, and the page server (pages only) never builds an API. A
// require of these CommonJS packages, not a top-level `await import()`: an ES module with a
// top-level await cannot be require()d (ERR_REQUIRE_ASYNC_MODULE), and svc must stay loadable
// from CommonJS code on Node 22+.
const require = createRequire(import.meta.url)

/**
 * The app's Fastify instance (`app.api`) where the API is served: svc's request IDs and request
 * log (`createApi`), then its OpenAPI collector and docs UI (`documentApi`). Imported only by
 * processes that serve the API (src/app.ts): the page server never loads Fastify.
 */
export function createApi(settings: ResolvedSettings, logger: Logger, fastifyOptions: FastifyServerOptions | undefined): FastifyInstance {
  const apiOptions: FastifyServerOptions = {
    ...fastifyOptions,
    loggerInstance: logger as FastifyBaseLogger,
    logController: createApiRequestLogController(settings),
    requestIdHeader: false,
    genReqId: () => getRequestId() ?? randomUUID(),
    trustProxy: settings.trust_proxy,
  }
  const { fastify: Fastify } = require('fastify') as typeof import('fastify')
  const compilers = withLazySchemaCompilers(fastifyOptions?.schemaController)
  const lazy = Fastify({ ...apiOptions, schemaController: compilers.options }) as unknown as FastifyInstance
  const api = markCompilersDefault(lazy, compilers.lazy) ? lazy : (Fastify(apiOptions) as unknown as FastifyInstance)
  // The id goes out with Fastify's own headers: a header set on the raw response before
  // Fastify writes the head makes Node merge the two header sets on every answer.
  api.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })
  return api
}

/** The OpenAPI collector, `/openapi.json` and the docs UI (loaded on its first request). */
export function documentApi(api: FastifyInstance, settings: ResolvedSettings): void {
  const base = settings.root_path + settings.api_mount_path
  const { fastifySwagger } = require('@fastify/swagger') as typeof import('@fastify/swagger')
  // Applied synchronously (not via register) so that routes the user declares right after
  // `new Svc()` are seen by the OpenAPI collector's onRoute hook.
  fastifySwagger(api, {
    openapi: {
      openapi: '3.1.0',
      info: { title: settings.title, version: '0.1.0' },
      servers: [{ url: base }],
    },
    transform: openApiTransform,
    transformObject: openApiTransformObject,
  }, () => {})
  serveDocsUiOnFirstUse(api, base, loadOpenApiTransforms)
  api.get('/openapi.json', { schema: { hide: true } }, async () => {
    await loadOpenApiTransforms()
    return api.swagger()
  })
}
