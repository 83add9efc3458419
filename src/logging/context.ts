import { AsyncLocalStorage } from 'node:async_hooks'

/** The request-ID header, on the way in and on every response and proxy hop. */
export const REQUEST_ID_HEADER = 'X-Request-ID'

interface RequestContext {
  requestId: string | undefined
}

const storage = new AsyncLocalStorage<RequestContext>()

/** The request ID of the request being served in this async context, if any. */
export function getRequestId(): string | undefined {
  return storage.getStore()?.requestId
}

/**
 * Set the request ID for the current async context. Inside a request this replaces the
 * resolved ID; outside one it starts a context for the rest of the current synchronous run
 * and what it schedules.
 */
export function setRequestId(requestId: string | undefined): void {
  const store = storage.getStore()
  if (store) store.requestId = requestId
  else storage.enterWith({ requestId })
}

/** Run `fn` with `requestId` as the current request ID. */
export function runWithRequestId<T>(requestId: string | undefined, fn: () => T): T {
  return storage.run({ requestId }, fn)
}
