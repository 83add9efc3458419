/**
 * Requests sent to a child over its channel and not answered yet, by id. Each settles once: with
 * the child's answer (`settle`), with a fallback when it could not be sent or its time ran out,
 * or with what `settleAll` says when the child is gone.
 */
export class PendingAnswers<T> {
  readonly #waiting = new Map<number, (answer: T) => void>()

  /**
   * Send request `id` (`send` returns false when it could not be sent) and wait for its answer;
   * `fallback` gives the answer when it was not sent, or none came within `timeoutMs`.
   */
  wait(id: number, timeoutMs: number, send: () => boolean, fallback: (why: 'unsent' | 'timeout') => T): Promise<T> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(id, fallback('timeout')), timeoutMs)
      this.#waiting.set(id, (answer) => {
        clearTimeout(timer)
        resolve(answer)
      })
      if (!send()) this.settle(id, fallback('unsent'))
    })
  }

  /** The answer to `id` (ignored when `id` waits no more: answered, timed out or never sent). */
  settle(id: number, answer: T): void {
    const resolve = this.#waiting.get(id)
    this.#waiting.delete(id)
    resolve?.(answer)
  }

  /** Every request still waiting gets `answer`. */
  settleAll(answer: T): void {
    for (const id of [...this.#waiting.keys()]) this.settle(id, answer)
  }
}
