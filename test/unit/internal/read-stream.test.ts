import { describe, expect, it } from 'vitest'
import { readStream } from '../../../src/internal/read-stream.js'

function source(chunks: string[], onCancel: () => void): ReadableStream<string> {
  let i = 0
  return new ReadableStream<string>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!)
      else controller.close()
    },
    cancel: onCancel,
  })
}

describe('readStream', () => {
  it('yields every chunk in order; a stream read to its end is not cancelled and is unlocked', async () => {
    let cancelled = false
    const stream = source(['a', 'b', 'c'], () => (cancelled = true))
    const seen: string[] = []
    for await (const chunk of readStream(stream)) seen.push(chunk)
    expect(seen).toEqual(['a', 'b', 'c'])
    expect(cancelled).toBe(false)
    expect(stream.locked).toBe(false)
  })

  it('leaving the loop early cancels the stream and releases its lock', async () => {
    let cancelled = false
    const stream = source(['a', 'b', 'c'], () => (cancelled = true))
    for await (const chunk of readStream(stream)) if (chunk === 'a') break
    expect(cancelled).toBe(true)
    expect(stream.locked).toBe(false)
  })
})
