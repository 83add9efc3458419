import { SvcError } from '../errors.js'
import type { RouteHandle } from '../api/route.js'
import type { ApiIssue } from '../api/zod-schema.js'
import type { ErrorBody } from './typed-call.js'

export type ApiCallErrorCode = 'SVC_ERR_CLIENT_HTTP_ERROR' | 'SVC_ERR_CLIENT_BAD_RESPONSE'

/**
 * A typed call that did not produce its typed result: the API answered with an error status
 * (`SVC_ERR_CLIENT_HTTP_ERROR`, `status` and `body` as answered), or its answer does not match
 * the route's schema (`SVC_ERR_CLIENT_BAD_RESPONSE`, `issues` say where). `body` is typed by the
 * route: svc's error shape `{ error, message, request_id }` or a declared error answer.
 */
export class ApiCallError<R = RouteHandle> extends SvcError {
  declare readonly code: ApiCallErrorCode
  readonly #status: number
  readonly body: ErrorBody<R>
  readonly requestId: string | undefined
  readonly issues: ApiIssue[]
  /** `GET /orders/:id`: the route as declared. */
  readonly route: string

  constructor(code: ApiCallErrorCode, init: { status: number; body: ErrorBody<R>; requestId: string | undefined; issues: ApiIssue[]; route: string; message: string }) {
    super(code, init.message)
    this.name = 'ApiCallError'
    this.#status = init.status
    this.body = init.body
    this.requestId = init.requestId
    this.issues = init.issues
    this.route = init.route
  }

  /** The HTTP status of the answer. */
  override get status(): number {
    return this.#status
  }
}

/** `isApiCallError(err, listOrders)` narrows `err.body` to that route's error answers. */
export function isApiCallError<R = RouteHandle>(value: unknown, _route?: R): value is ApiCallError<R> {
  return value instanceof SvcError && (value.code === 'SVC_ERR_CLIENT_HTTP_ERROR' || value.code === 'SVC_ERR_CLIENT_BAD_RESPONSE')
}
