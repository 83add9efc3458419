import { SvcError } from '../../errors.js'
import type * as zc from 'zod/v4/core'

/** Any zod 4 schema (the app's copy of zod or svc's), and what it parses into. */
export type ZodSchema = zc.$ZodType
export type Output<S> = S extends ZodSchema ? zc.output<S> : unknown

/**
 * A value the browser sent back (a cookie, a browser-storage entry) or a store returned, through
 * the page's zod schema (any zod 4 copy: its Standard Schema `validate`). JSON text is parsed
 * first; text that is not JSON, or JSON the schema refuses, is tried as the plain string
 * (`set('theme', 'dark')` reads back with `z.enum(['light', 'dark'])`).
 */
export function checkedValue<S extends ZodSchema>(raw: string, schema: S, where: string): { ok: true; value: Output<S> } | { ok: false; reason: string } {
  let parsed: unknown = raw
  let json = false
  try {
    parsed = JSON.parse(raw)
    json = true
  } catch {
    // Not JSON: the plain string.
  }
  const first = validate(schema, parsed, where)
  if (first.ok || !json || typeof parsed === 'string') return first
  const plain = validate(schema, raw, where)
  return plain.ok ? plain : first
}

/**
 * A stored value as the page reads it: without a schema the parsed JSON (or the plain string);
 * with one, the checked value, or undefined when the schema refuses it (`invalid` says why).
 */
export function readStored(raw: string, schema: ZodSchema | undefined, where: string, invalid: (reason: string) => void): unknown {
  if (!schema) {
    try {
      return JSON.parse(raw) as unknown
    } catch {
      return raw
    }
  }
  const checked = checkedValue(raw, schema, where)
  if (checked.ok) return checked.value
  invalid(checked.reason)
  return undefined
}

function validate<S extends ZodSchema>(schema: S, value: unknown, where: string): { ok: true; value: Output<S> } | { ok: false; reason: string } {
  const result = schema['~standard'].validate(value)
  if (result instanceof Promise) throw new SvcError('SVC_ERR_UI_BAD_CALL', `${where}: the schema has asynchronous checks; a stored value is checked synchronously, so use a schema without async refinements`)
  if (result.issues === undefined) return { ok: true, value: result.value as Output<S> }
  return { ok: false, reason: result.issues.map((i) => `${i.path?.length ? `${i.path.map((p) => (typeof p === 'object' ? String(p.key) : String(p))).join('.')}: ` : ''}${i.message}`).join('; ') }
}

/** A value as stored text: strings as they are, anything else as JSON; refused when JSON cannot hold it. */
export function storedText(value: unknown, where: string): string {
  if (typeof value === 'string') return value
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch (err) {
    throw new SvcError('SVC_ERR_UI_STORAGE', `${where}: the value cannot be written as JSON (${(err as Error).message}); store plain data`)
  }
  if (text === undefined) throw new SvcError('SVC_ERR_UI_STORAGE', `${where}: the value cannot be written as JSON (a function or undefined); store plain data, or delete the key`)
  return text
}
