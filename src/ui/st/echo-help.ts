import { inspect } from 'node:util'
import { SvcError } from '../../errors.js'
import type { HelpProps } from '../wire/elements.js'
import type { EchoOptions } from '../st-types.js'
import { callArgumentSource, functionBody } from './call-source.js'
import type { Emitter } from './run-context.js'

/**
 * `st.echo(fn)` shows the code of `fn` as the page's file has it (the call site, read from the
 * file; `fn.toString()`, which is the compiled JavaScript, when the file cannot be read) and runs
 * it; `st.help(value)` describes a value. Issue #36.
 */

export function echo<T>(em: Emitter & { code(code: string, o?: { language?: string }): void }, fn: () => T, o: EchoOptions = {}, stack: string | undefined): T {
  if (typeof fn !== 'function') throw new SvcError('SVC_ERR_UI_BAD_CALL', `echo(): pass the code to show and run as a function, st.echo(() => { ... }), got ${fn === null ? 'null' : typeof fn}`)
  const where = o.codeLocation ?? 'above'
  if (where !== 'above' && where !== 'below') throw new SvcError('SVC_ERR_UI_BAD_CALL', `echo(): codeLocation must be 'above' or 'below', got ${JSON.stringify(where)}`)
  const code = functionBody(callArgumentSource('echo', stack) ?? fn.toString())
  const show = (): void => em.code(code, { language: 'typescript' })
  if (where === 'above') {
    show()
    return fn()
  }
  const result = fn()
  if (result instanceof Promise) return result.then((r: unknown) => (show(), r)) as T
  show()
  return result
}

const MAX_MEMBERS = 60
const short = (v: unknown): string => inspect(v, { depth: 0, breakLength: Infinity, maxArrayLength: 5, maxStringLength: 80, compact: true })

function typeName(v: unknown): string {
  if (v === null) return 'null'
  if (typeof v === 'function') {
    if (/^class\b/.test(Function.prototype.toString.call(v))) return 'class'
    return v.constructor.name === 'AsyncFunction' ? 'async function' : 'function'
  }
  if (typeof v !== 'object') return typeof v
  const proto = Object.getPrototypeOf(v) as { constructor?: { name?: string } } | null
  return proto?.constructor?.name || 'Object'
}

/** `name(a, b = 1)` from a function's source head (the compiled code's, without types). */
function signature(v: unknown): string | null {
  if (typeof v !== 'function') return null
  const src = Function.prototype.toString.call(v)
  const cls = /^class\b/.test(src)
  const params = cls ? /\bconstructor\s*\(([^)]*)\)/.exec(src)?.[1] : /^[^(]*\(([^)]*)\)/.exec(src)?.[1] ?? /^(?:async\s+)?([\w$]+)\s*=>/.exec(src)?.[1]
  return `${cls ? 'new ' : ''}${v.name || '(anonymous)'}(${(params ?? '').replace(/\s+/g, ' ').trim()})`
}

function members(v: unknown): HelpProps['members'] {
  if ((typeof v !== 'object' && typeof v !== 'function') || v === null) return []
  const seen = new Set<string>()
  const out: HelpProps['members'] = []
  // Own keys, then the methods of each prototype up to Object's (or Function's).
  for (let o: object | null = v; o !== null && o !== Object.prototype && o !== Function.prototype && out.length < MAX_MEMBERS; o = Object.getPrototypeOf(o) as object | null) {
    for (const name of Object.getOwnPropertyNames(o)) {
      if (seen.has(name) || name === 'constructor' || name.startsWith('_') || (typeof v === 'function' && ['length', 'name', 'prototype', 'arguments', 'caller'].includes(name))) continue
      seen.add(name)
      const desc = Object.getOwnPropertyDescriptor(o, name)!
      const member: unknown = desc.get ? undefined : desc.value
      const type = desc.get ? 'getter' : typeName(member)
      out.push({ name, type, value: desc.get ? '' : typeof member === 'function' ? (signature(member) ?? '') : short(member) })
      if (out.length >= MAX_MEMBERS) break
    }
  }
  return out
}

export function helpProps(value: unknown, stack: string | undefined): HelpProps {
  const written = callArgumentSource('help', stack)
  const fn = typeof value === 'function'
  const described = (value as { description?: unknown } | null)?.description
  return {
    name: fn && (value as { name: string }).name ? (value as { name: string }).name : written !== null && written.length <= 80 ? written : null,
    type: typeName(value),
    signature: signature(value),
    value: fn ? null : short(value),
    doc: typeof described === 'string' && described.trim() !== '' ? described : null,
    members: members(value),
  }
}
