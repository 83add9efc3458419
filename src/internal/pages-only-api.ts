import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { SvcError } from '../errors.js'

/** Fastify's ways to declare routes, hooks, plugins and schemas: accepted and ignored here. */
const DECLARATIONS = new Set([
  'get', 'head', 'post', 'put', 'delete', 'options', 'patch', 'all', 'route', 'addHttpMethod',
  'propfind', 'proppatch', 'mkcol', 'copy', 'move', 'lock', 'unlock', 'trace', 'search', 'report', 'mkcalendar',
  'register', 'addHook', 'addSchema', 'decorateRequest', 'decorateReply', 'addContentTypeParser',
  'removeContentTypeParser', 'removeAllContentTypeParsers', 'setErrorHandler', 'setNotFoundHandler',
  'setSchemaErrorFormatter', 'setValidatorCompiler', 'setSerializerCompiler', 'setReplySerializer',
  'setSchemaController', 'setChildLoggerFactory', 'setGenReqId', 'addConstraintStrategy', 'withTypeProvider',
])
/** What would serve or call the API: there is none in this process. */
const SERVING = new Set(['listen', 'inject', 'routing', 'server', 'addresses', 'swagger', 'printRoutes', 'printPlugins', 'findRoute'])

/**
 * `app.api` where the app only runs pages (the page server's manifest child and page threads):
 * the API is served by the gateway workers, so Fastify is never loaded here. What the app module
 * declares on `app.api` at its top level (routes, hooks, plugins, schemas, type providers) is
 * accepted and ignored: plugins do not run. `decorate()` keeps its value, so a page that reads a
 * decoration finds it. `ready()` and `close()` resolve; serving calls (`listen`, `inject`,
 * `routing`, `server`…) throw with what to use instead.
 */
export function pagesOnlyApi(log: Logger): FastifyInstance {
  const decorations = new Map<string | symbol, unknown>()
  const chain = (): FastifyInstance => api
  const handler: ProxyHandler<object> = {
    get(_target, prop) {
      if (decorations.has(prop)) return decorations.get(prop)
      if (typeof prop !== 'string') return undefined
      if (DECLARATIONS.has(prop)) return chain
      if (SERVING.has(prop)) {
        throw new SvcError('SVC_ERR_UI_BAD_CALL', `app.api.${prop} is not available in the page server, which runs pages only (the gateway serves the API); a page calls the API through its client: (st, client) => client.get('/path')`)
      }
      switch (prop) {
        case 'log':
          return log
        case 'prefix':
          return ''
        case 'decorate':
          return (name: string | symbol, value: unknown) => {
            decorations.set(name, value)
            return api
          }
        case 'hasRoute':
          // No route is kept here, so a route declared only when missing is declared (and ignored).
          return () => false
        case 'hasDecorator':
          return (name: string | symbol) => decorations.has(name)
        case 'getDecorator':
          return (name: string | symbol) => decorations.get(name)
        case 'ready':
          return () => Promise.resolve(api)
        case 'close':
          return () => Promise.resolve()
        case 'after':
          return (callback?: (err: Error | null) => void) => (callback ? (callback(null), api) : Promise.resolve())
        default:
          return undefined
      }
    },
    set(_target, prop, value) {
      decorations.set(prop, value)
      return true
    },
  }
  const api = new Proxy({}, handler) as FastifyInstance
  return api
}
