import type * as zc from 'zod/v4/core'

/** Any zod 4 schema (`zod` or `zod/mini`); the types of typed routes and calls are built on it. */
export type ZodSchema = zc.$ZodType

/** What a schema parses into, and what a handler returns for it. */
export type Output<S> = S extends ZodSchema ? zc.output<S> : unknown

/** What a schema accepts on the wire. */
export type Input<S> = S extends ZodSchema ? zc.input<S> : unknown

/**
 * A zod 4 schema carries its internals under `_zod`, whichever copy of zod built it (the app's,
 * svc's bundled one): a structural check works across copies where `instanceof` might not.
 */
export function isZodSchema(value: unknown): value is ZodSchema {
  return typeof value === 'object' && value !== null && '_zod' in value
}

/** One place a request or answer broke its schema, as svc reports it (`issues` of a 400 body). */
export interface ApiIssue {
  /** Which part: `querystring`, `params`, `body`, `headers`, or `response` / `event` for answers. */
  in: string
  path: (string | number)[]
  message: string
  code: string
}

export function toApiIssues(part: string, issues: readonly zc.$ZodIssue[]): ApiIssue[] {
  return issues.map((i) => ({ in: part, path: i.path.map((p) => (typeof p === 'number' ? p : String(p))), message: i.message, code: i.code }))
}

/** `querystring.region: Invalid input: expected string, received undefined; body.items[0]: …` */
export function describeIssues(issues: readonly ApiIssue[]): string {
  return issues
    .map((i) => `${i.in}${i.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('')}: ${i.message}`)
    .join('; ')
}
