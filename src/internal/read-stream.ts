/**
 * The chunks of a web `ReadableStream`, read through its reader. Leaving the loop early (a
 * `break`, a throw, a stale run) cancels the stream, so a fetch body stops downloading and its
 * connection closes; the lock is released either way.
 */
export async function* readStream<T>(stream: ReadableStream<T>): AsyncGenerator<T> {
  const reader = stream.getReader()
  let done = false
  try {
    for (;;) {
      const r = await reader.read()
      if (r.done) {
        done = true
        return
      }
      yield r.value
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined)
    reader.releaseLock()
  }
}
