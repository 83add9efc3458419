/**
 * Server-Sent Events (WHATWG HTML, "event stream interpretation") read from text pieces that may
 * split lines anywhere: one `{ event, data }` per dispatched event. Used by typed event routes
 * (`client.stream()`) and by `st.writeStream` for event-stream bodies.
 */
export interface SseEvent {
  /** The `event:` field; `message` when the event had none. */
  event: string
  data: string
}

export async function* sseEvents(text: AsyncIterable<string>): AsyncGenerator<SseEvent> {
  let buffer = ''
  let data: string[] = []
  let event = ''
  const line = (l: string): SseEvent | null => {
    if (l === '') {
      const out = data.length > 0 ? { event: event || 'message', data: data.join('\n') } : null
      data = []
      event = ''
      return out
    }
    if (l.startsWith(':')) return null
    const colon = l.indexOf(':')
    const field = colon < 0 ? l : l.slice(0, colon)
    const value = colon < 0 ? '' : l.slice(colon + (l[colon + 1] === ' ' ? 2 : 1))
    if (field === 'data') data.push(value)
    else if (field === 'event') event = value
    return null
  }
  // A "\r" that ends one piece and a "\n" that starts the next are one line break.
  let skipLf = false
  for await (let piece of text) {
    if (skipLf && piece.startsWith('\n')) piece = piece.slice(1)
    if (piece === '') continue
    skipLf = piece.endsWith('\r')
    buffer += piece
    const lines = buffer.split(/\r\n|\r|\n/)
    buffer = lines.pop()!
    for (const l of lines) {
      const out = line(l)
      if (out !== null) yield out
    }
  }
  // A stream that ends without the blank line still delivers its last event.
  if (buffer !== '') line(buffer)
  const last = line('')
  if (last !== null) yield last
}
