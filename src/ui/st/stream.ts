import { SvcError } from '../../errors.js'
import { sseEvents } from '../../client/sse.js'
import { readStream } from '../../internal/read-stream.js'
import type { StreamSource, WriteStreamOptions } from '../st-types.js'

/**
 * Stream sources of `st.writeStream`, turned into one async sequence of text pieces. Ending the
 * loop early (a stale run) cancels the source, so a fetch body stops downloading.
 */

type Format = NonNullable<WriteStreamOptions['format']>
type ResponseLike = { readonly body: ReadableStream<Uint8Array> | null; readonly headers?: { get(name: string): string | null } }

/** The first bytes of a Server-Sent Events body: a field name and a colon, or a comment. */
const SSE_START = /^(?:data|event|id|retry):|^:/

/** The end marker many model APIs send as their last event; it is not text. */
const SSE_DONE = '[DONE]'

function isReadableStream(v: unknown): v is ReadableStream<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { getReader?: unknown }).getReader === 'function'
}

function isResponseLike(v: unknown): v is ResponseLike {
  return typeof v === 'object' && v !== null && 'body' in v && !isReadableStream(v) && !(Symbol.asyncIterator in v)
}

/** Strings pass through; bytes are decoded as UTF-8 across chunk boundaries. */
async function* decode(chunks: AsyncIterable<unknown> | Iterable<unknown>): AsyncGenerator<string> {
  const decoder = new TextDecoder()
  for await (const chunk of chunks) {
    if (typeof chunk === 'string') yield chunk
    else if (chunk instanceof Uint8Array) yield decoder.decode(chunk, { stream: true })
    else if (chunk instanceof ArrayBuffer) yield decoder.decode(new Uint8Array(chunk), { stream: true })
    else {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `writeStream(): the stream produced a ${chunk === null ? 'null' : typeof chunk} chunk; yield strings (or bytes), e.g. yield String(value)`)
    }
  }
  const tail = decoder.decode()
  if (tail !== '') yield tail
}

/** The `data` of each Server-Sent Event, one piece per event. */
export async function* sseData(text: AsyncIterable<string>): AsyncGenerator<string> {
  for await (const { data } of sseEvents(text)) if (data !== '' && data !== SSE_DONE) yield data
}

async function* prepend(head: string, rest: AsyncIterator<string>): AsyncGenerator<string> {
  let finished = false
  try {
    yield head
    for (;;) {
      const r = await rest.next()
      if (r.done) {
        finished = true
        return
      }
      yield r.value
    }
  } finally {
    if (!finished) await rest.return?.()
  }
}

/** Plain text unless the first non-empty piece looks like an event stream. */
async function* sniff(text: AsyncIterable<string>): AsyncGenerator<string> {
  const it = text[Symbol.asyncIterator]()
  let first = await it.next()
  while (!first.done && first.value === '') first = await it.next()
  if (first.done) return
  const all = prepend(first.value, it)
  yield* SSE_START.test(first.value) ? sseData(all) : all
}

/** Every accepted source as text pieces; throws `SVC_ERR_UI_BAD_CALL` for anything else. */
export function streamText(source: StreamSource, format: Format = 'auto'): AsyncIterable<string> {
  let chunks: AsyncIterable<unknown> | Iterable<unknown>
  let bytes = false
  if (isReadableStream(source)) {
    chunks = readStream(source)
    bytes = true
  } else if (isResponseLike(source)) {
    if (source.body === null) return decode([])
    const type = source.headers?.get('content-type') ?? null
    if (format === 'auto' && type !== null) format = /^text\/event-stream\b/i.test(type) ? 'sse' : 'text'
    chunks = readStream(source.body)
    bytes = true
  } else if (typeof source === 'object' && source !== null && (Symbol.asyncIterator in source || Symbol.iterator in source)) {
    chunks = source as AsyncIterable<unknown> | Iterable<unknown>
  } else if (typeof source === 'string') {
    chunks = [source]
  } else {
    throw new SvcError(
      'SVC_ERR_UI_BAD_CALL',
      `writeStream(): cannot stream a ${source === null ? 'null' : typeof source}; pass an async iterable of strings, a ReadableStream, or a fetch/API client response`,
    )
  }
  const text = decode(chunks)
  if (format === 'sse') return sseData(text)
  if (format === 'auto' && bytes) return sniff(text)
  return text
}
