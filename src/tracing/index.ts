import diagnostics from 'node:diagnostics_channel'
import { SvcError } from '../errors.js'

/**
 * svc's trace hook: one process-wide function that turns svc's spans into your tracer's spans.
 * svc bundles no tracing library; see examples/otel for an OpenTelemetry adapter.
 *
 * The gateway's one source of tracing is its `node:diagnostics_channel` tracing channels
 * (`svc:gateway:request`, `svc:gateway:ws`, `svc:gateway:proxy`); the hook is a subscriber to
 * them that opens a span at `start` and ends it at `asyncEnd`. With no hook (and no other
 * subscriber) nothing is published, so the request path checks a flag and does nothing else.
 */
export const REQUEST_CHANNEL = 'svc:gateway:request'
export const WS_CHANNEL = 'svc:gateway:ws'
export const PROXY_CHANNEL = 'svc:gateway:proxy'

/** The context of `svc:gateway:request` (HTTP) and `svc:gateway:ws` (WebSocket upgrades). */
export interface GatewayRequestContext {
  requestId: string
  /** `api` (served in-process) or `ui` (proxied to the sidecar). */
  dispatch: 'api' | 'ui'
  /** The HTTP method; `GET` for a WebSocket upgrade. */
  method: string
  /** The path as the client sent it, without the query or a fragment (either may carry a token). */
  path: string
  /** The client's W3C trace context, as the gateway passes it on. */
  traceparent?: string | undefined
  tracestate?: string | undefined
  /** Set when the response is done: the status sent (101 for a WebSocket that opened). */
  statusCode?: number
  /** Set on `error`: why the request failed. */
  error?: Error
}

/** The context of `svc:gateway:proxy`: the HTTP hop from the gateway to the sidecar. */
export interface GatewayProxyContext {
  requestId: string
  method: string
  /** The sidecar URL of the hop, without the query. */
  url: string
  error?: Error
}

export type TraceAttributeValue = string | number | boolean
/** Attributes as svc passes them in; `null` / `undefined` values are dropped before the hook. */
export type TraceAttributesInput = Readonly<Record<string, TraceAttributeValue | null | undefined>>
/** Attributes as the hook receives them: never null. */
export type TraceAttributes = Readonly<Record<string, TraceAttributeValue>>

/** A started span: `end()` once, with the error when the traced work failed. */
export interface TraceSpan {
  end(error?: Error): void
}

/**
 * The W3C trace context a span continues from. For `svc.gateway.request` it holds the client's
 * `traceparent` / `tracestate` headers (the same values the gateway copies to the sidecar).
 */
export interface TraceCarrier {
  traceparent?: string | undefined
  tracestate?: string | undefined
}

/**
 * Called at the start of each span with its name, its attributes and, when known, the incoming
 * trace context. Return an object with `end(error?)`, or a `Disposable` (`[Symbol.dispose]()`,
 * ended without the error), or nothing. A hook that throws fails the traced operation: hooks must
 * not throw.
 */
export type TraceHook = (name: string, attributes: TraceAttributes, carrier?: TraceCarrier) => TraceSpan | Disposable | void

/** Returned by `setTraceHook`: call it (or pass it to `resetTraceHook`) to restore the previous hook. */
export type TraceHookToken = () => void

const NOOP_SPAN: TraceSpan = { end() {} }

let currentHook: TraceHook | null = null

/**
 * Install `hook` for the whole process (or remove it with `null`). Returns a token that puts back
 * the hook that was installed before.
 */
export function setTraceHook(hook: TraceHook | null): TraceHookToken {
  const previous = currentHook
  install(hook)
  let used = false
  return () => {
    if (used) return
    used = true
    install(previous)
  }
}

/** Restore the hook from before `token`'s `setTraceHook`; without a token, remove any hook. */
export function resetTraceHook(token?: TraceHookToken): void {
  if (token) token()
  else install(null)
}

/** The spans the hook opened, by the channel context they belong to. */
const openSpans = new WeakMap<object, TraceSpan>()

type Handlers = Parameters<diagnostics.TracingChannel<object, object>['subscribe']>[0]

function spanHandlers<C extends object>(open: (context: C) => TraceSpan): Handlers {
  return {
    start: (context) => void openSpans.set(context, open(context as C)),
    end: () => {},
    asyncStart: () => {},
    asyncEnd: (context) => {
      openSpans.get(context)?.end((context as { error?: Error }).error)
      openSpans.delete(context)
    },
    error: () => {},
  }
}

const requestSpan = (type: string) => (c: GatewayRequestContext): TraceSpan =>
  traceSpan('svc.gateway.request', { 'svc.dispatch': c.dispatch, 'http.method_or_type': type === 'websocket' ? 'websocket' : c.method, 'url.path': c.path, request_id: c.requestId }, { traceparent: c.traceparent, tracestate: c.tracestate })

const SUBSCRIPTIONS: ReadonlyArray<[string, Handlers]> = [
  [REQUEST_CHANNEL, spanHandlers<GatewayRequestContext>(requestSpan('http'))],
  [WS_CHANNEL, spanHandlers<GatewayRequestContext>(requestSpan('websocket'))],
  [PROXY_CHANNEL, spanHandlers<GatewayProxyContext>((c) => traceSpan('svc.gateway.upstream_http', { 'http.request.method': c.method, 'url.full': c.url, 'svc.request_id': c.requestId }))],
]

/** The hook subscribes to the gateway's channels while one is installed, and only then. */
function install(hook: TraceHook | null): void {
  const was = currentHook !== null
  currentHook = hook
  if (was === (hook !== null)) return
  for (const [name, handlers] of SUBSCRIPTIONS) {
    const channel = diagnostics.tracingChannel(name)
    if (hook) channel.subscribe(handlers)
    else channel.unsubscribe(handlers)
  }
}

/** True when a trace hook is installed. */
export function hasTraceHook(): boolean {
  return currentHook !== null
}

function dropNulls(attributes: TraceAttributesInput): TraceAttributes {
  const out: Record<string, TraceAttributeValue> = {}
  for (const key in attributes) {
    const v = attributes[key]
    if (v !== null && v !== undefined) out[key] = v
  }
  return out
}

/** Start span `name` through the installed hook; a no-op span when none is installed. */
export function traceSpan(name: string, attributes: TraceAttributesInput = {}, carrier?: TraceCarrier): TraceSpan {
  const hook = currentHook
  if (hook === null) return NOOP_SPAN
  const result = carrier?.traceparent ? hook(name, dropNulls(attributes), carrier) : hook(name, dropNulls(attributes))
  if (result === undefined || result === null) return NOOP_SPAN
  let ended = false
  if (typeof (result as TraceSpan).end === 'function') {
    const span = result as TraceSpan
    return {
      end(error) {
        if (ended) return
        ended = true
        span.end(error)
      },
    }
  }
  if (typeof (result as Disposable)[Symbol.dispose] === 'function') {
    const disposable = result as Disposable
    return {
      end() {
        if (ended) return
        ended = true
        disposable[Symbol.dispose]()
      },
    }
  }
  throw new SvcError('SVC_ERR_TRACE_BAD_HOOK', `trace hook returned ${typeof result} for span "${name}": return { end(error?) }, a Disposable, or nothing`)
}

/** Run `fn` inside span `name`; the span ends when `fn` settles, with its error if it throws. */
export async function withTraceSpan<T>(name: string, attributes: TraceAttributesInput, fn: () => T | Promise<T>): Promise<T> {
  const span = traceSpan(name, attributes)
  try {
    const value = await fn()
    span.end()
    return value
  } catch (error) {
    span.end(error instanceof Error ? error : new Error(String(error)))
    throw error
  }
}
