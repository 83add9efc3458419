import { z } from '../internal/zod.js'
import { SvcError } from '../errors.js'
import { describeIssues, toApiIssues, type ApiIssue, type ZodSchema } from './zod-schema.js'

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
  return (data) => {
    let result: ReturnType<typeof z.safeEncode>
    try {
      result = z.safeEncode(schema, data)
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
