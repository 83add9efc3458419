import { afterEach, describe, expect, it } from 'vitest'
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  propagation,
  trace,
  type Context,
  type Span,
  type SpanContext,
  type SpanOptions,
  type TextMapPropagator,
  type Tracer,
} from '@opentelemetry/api'
import { resetTraceHook, setTraceHook, traceSpan } from '../../../src/tracing/index.js'
import { otelTraceHook } from '../../../examples/otel/otel-trace-hook.js'

/** The W3C traceparent propagator the OpenTelemetry SDK would register, reduced to extract(). */
const w3c: TextMapPropagator = {
  inject() {},
  extract(ctx, carrier: Record<string, string>) {
    const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(carrier.traceparent ?? '')
    if (!m) return ctx
    return trace.setSpanContext(ctx, { traceId: m[1]!, spanId: m[2]!, traceFlags: parseInt(m[3]!, 16), isRemote: true })
  },
  fields: () => ['traceparent', 'tracestate'],
}

interface Recorded {
  name: string
  kind: SpanKind | undefined
  attributes: SpanOptions['attributes']
  context: SpanContext
  parent: SpanContext | undefined
  status: { code: SpanStatusCode; message?: string } | undefined
  exceptions: unknown[]
  ended: boolean
}

/** A tracer that records what the hook asked for. */
function recordingTracer(): { tracer: Tracer; spans: Recorded[] } {
  const spans: Recorded[] = []
  let next = 1
  const tracer = {
    startSpan(name: string, options: SpanOptions = {}, ctx: Context = ROOT_CONTEXT): Span {
      const parent = trace.getSpanContext(ctx)
      const rec: Recorded = {
        name,
        kind: options.kind,
        attributes: options.attributes,
        parent,
        context: {
          traceId: parent?.traceId ?? 'f'.repeat(32),
          spanId: (next++).toString(16).padStart(16, '0'),
          traceFlags: TraceFlags.SAMPLED,
        },
        status: undefined,
        exceptions: [],
        ended: false,
      }
      spans.push(rec)
      const span = {
        spanContext: () => rec.context,
        recordException: (e: unknown) => void rec.exceptions.push(e),
        setStatus: (s: Recorded['status']) => {
          rec.status = s
          return span
        },
        end: () => void (rec.ended = true),
      }
      return span as unknown as Span
    },
  }
  return { tracer: tracer as unknown as Tracer, spans }
}

afterEach(() => {
  resetTraceHook()
  propagation.disable()
})

describe('examples/otel hook', () => {
  it('continues the client trace, nests the upstream hop, and marks errors', () => {
    propagation.setGlobalPropagator(w3c)
    const { tracer, spans } = recordingTracer()
    setTraceHook(otelTraceHook(tracer))
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
    const request = traceSpan(
      'svc.gateway.request',
      { 'svc.dispatch': 'ui', 'http.method_or_type': 'GET', 'url.path': '/', request_id: 'r1' },
      { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    )
    const upstream = traceSpan('svc.gateway.upstream_http', { 'http.request.method': 'GET', 'url.full': 'http://127.0.0.1:1/', 'svc.request_id': 'r1' })
    upstream.end(new Error('ECONNRESET'))
    request.end()

    const [req, up] = spans
    expect(req).toMatchObject({ name: 'svc.gateway.request', kind: SpanKind.SERVER, ended: true, status: undefined })
    expect(req!.parent).toMatchObject({ traceId, spanId: '00f067aa0ba902b7', isRemote: true })
    expect(req!.attributes).toEqual({ 'svc.dispatch': 'ui', 'http.method_or_type': 'GET', 'url.path': '/', request_id: 'r1' })
    expect(up).toMatchObject({ name: 'svc.gateway.upstream_http', kind: SpanKind.CLIENT, ended: true })
    expect(up!.parent).toEqual(req!.context)
    expect(up!.context.traceId).toBe(traceId)
    expect(up!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'ECONNRESET' })
    expect(up!.exceptions).toHaveLength(1)
  })

  it('starts a new trace when the client sent no traceparent', () => {
    const { tracer, spans } = recordingTracer()
    setTraceHook(otelTraceHook(tracer))
    traceSpan('svc.gateway.request', { request_id: 'r2' }).end()
    expect(spans[0]!.parent).toBeUndefined()
  })
})
