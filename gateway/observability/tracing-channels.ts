import diagnostics from 'node:diagnostics_channel'
import { PROXY_CHANNEL, REQUEST_CHANNEL, WS_CHANNEL, type GatewayProxyContext, type GatewayRequestContext } from '../../src/tracing/index.js'
import { NOOP_OBSERVATION, type GatewayObserver, type RequestInfo, type RequestObservation, type UpstreamObservation } from './observation.js'

/**
 * The gateway's hops published on `node:diagnostics_channel` tracing channels, as fastify and
 * undici publish theirs, so that OpenTelemetry instrumentations and APM agents see them without
 * svc's observer (which stays for the built-in access log and metrics); svc's own trace hook
 * (`svc/tracing`) is one more subscriber. Each hop is one
 * context object through `start` → `end` (the synchronous part: handing the request on) →
 * `asyncStart` → `asyncEnd` (the response is done), with `error` before `asyncStart` when it
 * failed. Fields: docs/observability.md#diagnostics-channels. Nothing is built while no one subscribes.
 */
const request = diagnostics.tracingChannel<object, GatewayRequestContext>(REQUEST_CHANNEL)
const proxy = diagnostics.tracingChannel<object, GatewayProxyContext>(PROXY_CHANNEL)
const ws = diagnostics.tracingChannel<object, GatewayRequestContext>(WS_CHANNEL)

const withoutQuery = (url: string): string => {
  const at = url.search(/[?#]/)
  return at === -1 ? url : url.slice(0, at)
}

function subscribed(): boolean {
  return request.hasSubscribers || proxy.hasSubscribers || ws.hasSubscribers
}

/** `observer`, plus the tracing channels for whoever subscribes to them. */
export function withDiagnosticsChannels(observer: GatewayObserver): GatewayObserver {
  return {
    observing: () => observer.observing() || subscribed(),
    begin(info) {
      const inner = observer.observing() ? observer.begin(info) : NOOP_OBSERVATION
      const channel = info.methodKind === 'WEBSOCKET' ? ws : request
      if (!channel.hasSubscribers && !proxy.hasSubscribers) return inner
      return new PublishedRequest(inner, info, channel)
    },
    upstreamQueueTimeout: () => observer.upstreamQueueTimeout(),
  }
}

class PublishedRequest implements RequestObservation {
  readonly #inner: RequestObservation
  readonly #requestId: string
  readonly #channel: typeof request | null
  readonly #context: GatewayRequestContext

  constructor(inner: RequestObservation, info: RequestInfo, channel: typeof request) {
    this.#inner = inner
    this.#requestId = info.requestId
    const method = info.methodKind === 'WEBSOCKET' ? 'GET' : info.methodKind
    this.#context = { requestId: info.requestId, dispatch: info.dispatch, method, path: withoutQuery(info.path), traceparent: info.traceparent, tracestate: info.tracestate }
    // Subscribers that joined after this request began see its next one, not half of this one.
    this.#channel = channel.hasSubscribers ? channel : null
    this.#channel?.start.publish(this.#context)
    this.#channel?.end.publish(this.#context)
  }

  upstream(method: string, urlFull: string): UpstreamObservation {
    const inner = this.#inner.upstream(method, urlFull)
    if (!proxy.hasSubscribers) return inner
    const context: GatewayProxyContext = { requestId: this.#requestId, method, url: withoutQuery(urlFull) }
    proxy.start.publish(context)
    proxy.end.publish(context)
    return {
      end(error) {
        inner.end(error)
        settle(proxy, context, error)
      },
    }
  }

  end(statusCode: number, error?: Error): void {
    this.#inner.end(statusCode, error)
    if (this.#channel === null || this.#context.statusCode !== undefined) return
    this.#context.statusCode = statusCode
    settle(this.#channel, this.#context, error)
  }
}

function settle<C extends { error?: Error }>(channel: diagnostics.TracingChannel<object, C>, context: C, error: Error | undefined): void {
  if (error) {
    context.error = error
    channel.error.publish(context)
  }
  channel.asyncStart.publish(context)
  channel.asyncEnd.publish(context)
}
