import { z } from '../internal/zod.js'
import { SvcError } from '../errors.js'
import { describeIssues, isZodSchema, toApiIssues, type ApiIssue, type ZodSchema } from './zod-schema.js'

/**
 * Validation and serialization of route parts declared with zod, the same calls
 * fastify-type-provider-zod's compilers make (`safeParse` in, `safeEncode` out), made with the zod
 * svc has already loaded: Fastify compiles schemas synchronously, where only the package's
 * CommonJS build could be loaded, and that one brings a second zod (about 60 ms of a worker's
 * start on a 2-core VM). The package's types (`ZodTypeProvider`) describe these compilers.
 */

/** A typed route's request or answer broke its schema. `statusCode` is the status Fastify answers. */
export class ApiSchemaError extends SvcError {
  readonly statusCode: number
  readonly issues: ApiIssue[]
  constructor(code: 'SVC_ERR_API_BAD_REQUEST' | 'SVC_ERR_API_BAD_RESPONSE', message: string, issues: ApiIssue[], options?: ErrorOptions) {
    super(code, message, options)
    this.statusCode = code === 'SVC_ERR_API_BAD_REQUEST' ? 400 : 500
    this.issues = issues
  }
}

export function isApiSchemaError(value: unknown): value is ApiSchemaError {
  return value instanceof SvcError && (value.code === 'SVC_ERR_API_BAD_REQUEST' || value.code === 'SVC_ERR_API_BAD_RESPONSE')
}

interface ValidatorRoute {
  schema: ZodSchema
  httpPart?: string
}

export function compileZodValidator({ schema, httpPart = 'request' }: ValidatorRoute): (data: unknown) => { value: unknown } | { error: Error } {
  return (data) => {
    const result = z.safeParse(schema, data)
    if (result.success) return { value: result.data }
    const issues = toApiIssues(httpPart, result.error.issues)
    return { error: new ApiSchemaError('SVC_ERR_API_BAD_REQUEST', describeIssues(issues), issues) }
  }
}

interface SerializerRoute {
  schema: ZodSchema
  method?: string
  url?: string
  httpStatus?: string
}

export function compileZodSerializer({ schema, method = '', url = '', httpStatus = '' }: SerializerRoute): (data: unknown) => string {
  const answer = `${method} ${url} answered ${httpStatus}`
  const encode = answerEncoder(schema)
  return (data) => {
    let result: ReturnType<typeof z.safeEncode>
    try {
      result = encode(data)
    } catch (err) {
      // zod refuses to run a one-way `.transform()` backwards: an answer needs a codec.
      throw new ApiSchemaError('SVC_ERR_API_BAD_RESPONSE', `${answer}, but its schema cannot encode a value (${(err as Error).message}); use z.codec() for conversions in response schemas`, [], { cause: err })
    }
    if (!result.success) {
      const issues = toApiIssues('response', result.error.issues)
      throw new ApiSchemaError('SVC_ERR_API_BAD_RESPONSE', `${answer} with a value its schema refuses: ${describeIssues(issues)}`, issues)
    }
    return JSON.stringify(result.data)
  }
}

/** Schemas that read the same both ways: no codec, pipe, transform, default, catch or lazy in them. */
const NEUTRAL_LEAVES = new Set(['string', 'number', 'int', 'boolean', 'bigint', 'symbol', 'null', 'undefined', 'void', 'never', 'any', 'unknown', 'date', 'enum', 'literal', 'template_literal', 'nan', 'file', 'custom'])

function childrenOf(def: Record<string, unknown>): unknown[] | null {
  switch (def.type) {
    case 'object':
      return [...Object.values(def.shape as Record<string, unknown>), def.catchall]
    case 'array':
      return [def.element]
    case 'tuple':
      return [...(def.items as unknown[]), def.rest]
    case 'record':
    case 'map':
      return [def.keyType, def.valueType]
    case 'set':
      return [def.valueType]
    case 'union':
      return def.options as unknown[]
    case 'intersection':
      return [def.left, def.right]
    case 'optional':
    case 'nullable':
    case 'nonoptional':
    case 'readonly':
      return [def.innerType]
    default:
      return null
  }
}

/** True when decoding and encoding a valid value give the same result (checked once per route). */
export function sameBothWays(schema: ZodSchema, path: Set<ZodSchema> = new Set()): boolean {
  if (path.has(schema)) return false
  const def = schema._zod.def as unknown as Record<string, unknown>
  if (NEUTRAL_LEAVES.has(def.type as string)) return true
  const children = childrenOf(def)
  if (children === null) return false
  path.add(schema)
  const neutral = children.every((c) => c === undefined || (isZodSchema(c) && sameBothWays(c, path)))
  path.delete(schema)
  return neutral
}

/**
 * How a handler's value becomes the answer: `safeEncode`, which runs codecs backwards, or, for a
 * schema that reads the same both ways, `safeParse`, the same result through zod's compiled fast
 * path (encode takes a slower path with a second pass per check: 20 orders 12 µs against 44,
 * docs/performance.md).
 */
export function answerEncoder(schema: ZodSchema): (data: unknown) => ReturnType<typeof z.safeEncode> {
  return sameBothWays(schema) ? (data) => z.safeParse(schema, data) : (data) => z.safeEncode(schema, data)
}
