import { createRequire } from 'node:module'
import type { SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger'
import { hasZodParts } from './typed-routes.js'
import { isZodSchema } from './zod-schema.js'

type Provider = typeof import('fastify-type-provider-zod')

/**
 * The OpenAPI document describes typed routes from their zod schemas, through
 * fastify-type-provider-zod's transforms (request parts as zod's input types, answers as its
 * output types, `.meta({ id })` schemas as shared components). The package is loaded when the
 * document is first built: `loadOpenApiTransforms()` before that (the `/openapi.json` route, the
 * docs UI); a direct `app.api.swagger()` before either loads its CommonJS build instead.
 * JSON-schema parts of a route are passed through as they are.
 */
let provider: Provider | undefined
let transform: ReturnType<Provider['createJsonSchemaTransform']> | undefined
/** The documents being built that describe a typed route: only they get the zod components. */
const typedDocuments = new WeakSet<object>()

export async function loadOpenApiTransforms(): Promise<void> {
  provider ??= await import('fastify-type-provider-zod')
}

function loaded(): Provider {
  provider ??= createRequire(import.meta.url)('fastify-type-provider-zod') as Provider
  return provider
}

const REQUEST_PARTS = ['body', 'querystring', 'params', 'headers'] as const

function isZodPart(value: unknown): boolean {
  return hasZodParts({ body: value })
}

export const openApiTransform: SwaggerTransform = (document) => {
  const { schema, url } = document
  if (!hasZodParts(schema)) return { schema, url }
  transform ??= loaded().createJsonSchemaTransform({ skipList: [] })
  if ('openapiObject' in document) typedDocuments.add(document.openapiObject)
  const source = schema as unknown as Record<string, unknown>
  const zodSide: Record<string, unknown> = {}
  const jsonSide: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(source)) {
    const part = key === 'query' ? 'querystring' : key
    if (key === 'response' && typeof value === 'object' && value !== null) {
      for (const [status, answer] of Object.entries(value as Record<string, unknown>)) {
        const side = isZodPart(answer) ? zodSide : jsonSide
        side.response = { ...(side.response as object | undefined), [status]: answer }
      }
    } else if ((REQUEST_PARTS as readonly string[]).includes(part)) {
      ;(isZodSchema(value) ? zodSide : jsonSide)[part] = value
    } else {
      zodSide[key] = value
    }
  }
  const out = transform({ ...document, schema: zodSide as typeof schema })
  const converted = (out.schema ?? {}) as Record<string, unknown>
  const response = { ...(jsonSide.response as object | undefined), ...(converted.response as object | undefined) }
  return {
    schema: { ...jsonSide, ...converted, ...(Object.keys(response).length > 0 ? { response } : {}) } as typeof schema,
    url: out.url,
  }
}

/** Adds the components of `.meta({ id })` schemas to a document that describes a typed route. */
export const openApiTransformObject: SwaggerTransformObject = (document) => {
  if (!('openapiObject' in document)) return document.swaggerObject
  return typedDocuments.has(document.openapiObject) ? loaded().jsonSchemaTransformObject(document) : document.openapiObject
}
