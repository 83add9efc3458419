import { afterEach, describe, expect, it, vi } from 'vitest'
import { PendingAnswers } from '../../../supervisor/pending-answers.js'

describe('PendingAnswers', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('settles a request with its answer once; a later answer or timeout changes nothing', async () => {
    vi.useFakeTimers()
    const pending = new PendingAnswers<string>()
    const sent: number[] = []
    const answer = pending.wait(1, 1_000, () => sent.push(1) > 0, (why) => `fallback ${why}`)
    expect(sent).toEqual([1])
    pending.settle(1, 'answered')
    pending.settle(1, 'again')
    vi.advanceTimersByTime(2_000)
    await expect(answer).resolves.toBe('answered')
    expect(vi.getTimerCount()).toBe(0)
  })

  it('falls back when the request could not be sent, or no answer came in time', async () => {
    vi.useFakeTimers()
    const pending = new PendingAnswers<string>()
    await expect(pending.wait(1, 1_000, () => false, (why) => `fallback ${why}`)).resolves.toBe('fallback unsent')
    expect(vi.getTimerCount()).toBe(0)
    const late = pending.wait(2, 1_000, () => true, (why) => `fallback ${why}`)
    vi.advanceTimersByTime(999)
    pending.settle(3, 'another id')
    vi.advanceTimersByTime(1)
    await expect(late).resolves.toBe('fallback timeout')
    pending.settle(2, 'too late')
  })

  it('settleAll answers every request still waiting, by id, and only those', async () => {
    vi.useFakeTimers()
    const pending = new PendingAnswers<string>()
    const first = pending.wait(1, 1_000, () => true, () => 'fallback')
    const second = pending.wait(2, 1_000, () => true, () => 'fallback')
    pending.settle(2, 'answered')
    pending.settleAll('gone')
    await expect(Promise.all([first, second])).resolves.toEqual(['gone', 'answered'])
    expect(vi.getTimerCount()).toBe(0)
  })
})
