import { SpanKind, SpanStatusCode, context, propagation, trace, type Span, type Tracer } from '@opentelemetry/api'
import type { TraceHook, TraceSpan } from 'svc/tracing'

/**
 * An svc trace hook that records svc's spans as OpenTelemetry spans.
 *
 * - `svc.gateway.request` (SERVER) continues the client's W3C trace: the hook receives the
 *   incoming `traceparent` / `tracestate` as its carrier and extracts it with the propagator your
 *   OpenTelemetry SDK registered (NodeSDK registers W3C Trace Context by default).
 * - `svc.gateway.upstream_http` (CLIENT) becomes a child of its request span, found by request ID.
 * - The gateway copies the client's `traceparent` to the sidecar unchanged, so spans the sidecar
 *   records join the same trace, as siblings of `svc.gateway.request`.
 */
export function otelTraceHook(tracer: Tracer = trace.getTracer('svc')): TraceHook {
  // Open request spans by request ID: the upstream hop names its request only by that ID.
  const open = new Map<string, Span>()

  return (name, attributes, carrier) => {
    if (name === 'svc.gateway.request') {
      const parent = carrier ? propagation.extract(context.active(), carrier) : context.active()
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent)
      const requestId = String(attributes.request_id ?? '')
      open.set(requestId, span)
      return ending(span, () => open.delete(requestId))
    }
    const owner = open.get(String(attributes['svc.request_id'] ?? ''))
    const parent = owner ? trace.setSpan(context.active(), owner) : context.active()
    const kind = name === 'svc.gateway.upstream_http' ? SpanKind.CLIENT : SpanKind.INTERNAL
    return ending(tracer.startSpan(name, { kind, attributes }, parent))
  }
}

function ending(span: Span, after?: () => void): TraceSpan {
  return {
    end(error) {
      if (error) {
        span.recordException(error)
        span.setStatus({ code: SpanStatusCode.ERROR, message: error.message })
      }
      span.end()
      after?.()
    },
  }
}
