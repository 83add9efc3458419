import { afterEach, describe, expect, it } from 'vitest'
import {
  hasTraceHook,
  resetTraceHook,
  setTraceHook,
  traceSpan,
  withTraceSpan,
  type TraceAttributes,
  type TraceCarrier,
} from '../../../src/tracing/index.js'

interface Recorded {
  name: string
  attributes: TraceAttributes
  carrier: TraceCarrier | undefined
  ended: Array<Error | undefined>
}

function recordingHook(): { spans: Recorded[]; hook: Parameters<typeof setTraceHook>[0] } {
  const spans: Recorded[] = []
  return {
    spans,
    hook: (name, attributes, carrier) => {
      const rec: Recorded = { name, attributes, carrier, ended: [] }
      spans.push(rec)
      return { end: (error?: Error) => rec.ended.push(error) }
    },
  }
}

afterEach(() => resetTraceHook())

describe('trace hook', () => {
  it('is off by default: traceSpan returns a no-op span', () => {
    expect(hasTraceHook()).toBe(false)
    expect(() => traceSpan('x', { a: 1 }).end()).not.toThrow()
  })

  it('passes name and attributes, skipping null and undefined values', () => {
    const { spans, hook } = recordingHook()
    setTraceHook(hook)
    traceSpan('svc.gateway.request', { 'svc.dispatch': 'api', 'url.path': '/api', n: 0, flag: false, gone: null, missing: undefined }).end()
    expect(spans).toEqual([
      { name: 'svc.gateway.request', attributes: { 'svc.dispatch': 'api', 'url.path': '/api', n: 0, flag: false }, carrier: undefined, ended: [undefined] },
    ])
  })

  it('hands the incoming traceparent to the hook as the carrier', () => {
    const { spans, hook } = recordingHook()
    setTraceHook(hook)
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
    traceSpan('s', {}, { traceparent: tp, tracestate: 'k=v' })
    expect(spans[0]!.carrier).toEqual({ traceparent: tp, tracestate: 'k=v' })
  })

  it('ends a span once, with the error', () => {
    const { spans, hook } = recordingHook()
    setTraceHook(hook)
    const span = traceSpan('s')
    const err = new Error('x')
    span.end(err)
    span.end()
    expect(spans[0]!.ended).toEqual([err])
  })

  it('accepts a hook returning a Disposable', () => {
    let disposed = 0
    setTraceHook(() => ({ [Symbol.dispose]: () => void disposed++ }))
    const span = traceSpan('s')
    span.end()
    span.end()
    expect(disposed).toBe(1)
  })

  it('accepts a hook returning nothing, and rejects any other value clearly', () => {
    setTraceHook(() => undefined)
    expect(() => traceSpan('s').end()).not.toThrow()
    setTraceHook(() => 42 as never)
    expect(() => traceSpan('s')).toThrow(/return \{ end\(error\?\) \}, a Disposable, or nothing/)
  })

  it('the token restores the previous hook; resetTraceHook() removes any hook', () => {
    const first = recordingHook()
    const second = recordingHook()
    setTraceHook(first.hook)
    const token = setTraceHook(second.hook)
    traceSpan('a')
    resetTraceHook(token)
    traceSpan('b')
    expect(second.spans.map((s) => s.name)).toEqual(['a'])
    expect(first.spans.map((s) => s.name)).toEqual(['b'])
    resetTraceHook()
    expect(hasTraceHook()).toBe(false)
  })

  it('withTraceSpan ends the span with the thrown error and rethrows', async () => {
    const { spans, hook } = recordingHook()
    setTraceHook(hook)
    await expect(withTraceSpan('ok', {}, async () => 7)).resolves.toBe(7)
    await expect(withTraceSpan('bad', {}, async () => { throw new TypeError('no') })).rejects.toThrow('no')
    expect(spans.map((s) => [s.name, s.ended[0]?.message])).toEqual([['ok', undefined], ['bad', 'no']])
  })
})
