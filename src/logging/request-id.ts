import { randomUUID } from 'node:crypto'

/** A client's X-Request-ID is used if, trimmed, it matches this; otherwise svc makes a UUIDv4. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:/+=-]{1,128}$/

export function resolveRequestId(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header
  if (value !== undefined) {
    const trimmed = value.trim()
    if (REQUEST_ID_PATTERN.test(trimmed)) return trimmed
  }
  return randomUUID()
}
