import { kSvcError } from '../errors.js'

/**
 * A misuse of the client (a host in the path, conflicting options). A `TypeError` so it reads
 * as a programming error, branded as an svc error so `isSvcError(e)` and `e.code` work.
 */
export class ApiClientUsageError extends TypeError {
  readonly [kSvcError] = true
  readonly code: 'SVC_ERR_CLIENT_ABSOLUTE_PATH' | 'SVC_ERR_CLIENT_CONFIG' | 'SVC_ERR_CLIENT_PATH_PARAM'
  constructor(code: ApiClientUsageError['code'], message: string) {
    super(message)
    this.name = 'ApiClientUsageError'
    this.code = code
  }
}
