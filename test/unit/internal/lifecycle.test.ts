import { describe, expect, it } from 'vitest'
import { Lifecycle } from '../../../src/internal/lifecycle.js'

/** A part whose drain waits until `finishDrain()`; it records what it was asked. */
class Part extends Lifecycle {
  readonly calls: string[] = []
  abortedWith: Error | undefined
  #finish: () => void = () => {}

  finishDrain(): void {
    this.#finish()
  }

  protected drain(): Promise<void> {
    this.calls.push('drain')
    return new Promise((resolve) => (this.#finish = resolve))
  }

  protected async abort(err: Error | undefined): Promise<void> {
    this.calls.push('abort')
    this.abortedWith = err
  }
}

describe('Lifecycle (the close contract)', () => {
  it('close drains once and returns the same promise on repeat; closed refuses new work from then on', async () => {
    const part = new Part()
    expect(part.closed).toBe(false)
    const first = part.close()
    expect(part.close()).toBe(first)
    expect(part.closed).toBe(true)
    expect(part.destroyed).toBe(false)
    part.finishDrain()
    await first
    expect(part.calls).toEqual(['drain'])
  })

  it('destroy(err) stops now with the error, once; the same promise on repeat', async () => {
    const part = new Part()
    const err = new Error('gone')
    const first = part.destroy(err)
    expect(part.destroy()).toBe(first)
    await first
    expect(part.abortedWith).toBe(err)
    expect(part.calls).toEqual(['abort'])
  })

  it('destroy cuts a running close short: the close resolves without its drain finishing', async () => {
    const part = new Part()
    const closing = part.close()
    await part.destroy()
    await closing
    expect(part.calls).toEqual(['drain', 'abort'])
    expect(part.destroyed).toBe(true)
  })

  it('close after destroy returns destroy’s promise and drains nothing', async () => {
    const part = new Part()
    const destroying = part.destroy()
    expect(part.close()).toBe(destroying)
    await destroying
    expect(part.calls).toEqual(['abort'])
  })
})
