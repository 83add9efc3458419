import { z } from '../internal/zod.js'
import { SvcError } from '../errors.js'
import type { St } from './st-types.js'

export interface ParseQueryOptions {
  /** Throw `SVC_ERR_UI_BAD_QUERY` instead of showing an error and returning defaults. */
  strict?: boolean
}

/**
 * Validate the page's query parameters with a zod schema. Repeated keys arrive as arrays,
 * single ones as strings (use `z.coerce.number()` for numbers). On invalid input the page shows
 * an error element and gets the schema's defaults (`schema.parse({})`); with `strict` it throws.
 */
export function parseQueryParams<S extends z.ZodType>(st: St, schema: S, options: ParseQueryOptions = {}): z.output<S> {
  const params = new URLSearchParams(st.queryParams.toString())
  const raw: Record<string, string | string[]> = {}
  for (const key of new Set(params.keys())) {
    const all = params.getAll(key)
    raw[key] = all.length === 1 ? all[0]! : all
  }
  const parsed = schema.safeParse(raw)
  if (parsed.success) return parsed.data
  const message = `Invalid query parameters: ${z.prettifyError(parsed.error)}`
  if (options.strict) throw new SvcError('SVC_ERR_UI_BAD_QUERY', message, { cause: parsed.error })
  st.error(message)
  const defaults = schema.safeParse({})
  if (defaults.success) return defaults.data
  throw new SvcError('SVC_ERR_UI_BAD_QUERY', `${message}; the schema has no defaults to fall back to (give each field a .default() or .optional())`, { cause: parsed.error })
}
