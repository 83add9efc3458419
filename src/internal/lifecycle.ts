/**
 * The one close contract of svc's long-lived parts, after undici's DispatcherBase:
 * - `close()` stops taking new work and finishes what is in flight. A repeated call returns the
 *   same promise; after `destroy()` it returns destroy's.
 * - `destroy(err?)` stops now: work still pending fails with `err` (the part's own "closed" error
 *   when none is given). It cuts a running `close()` short: that close resolves once destroy is
 *   done. A repeated call returns the same promise.
 * A part extends `Lifecycle` and writes only `drain()` and `abort(err)`; `closed` tells it to
 * refuse new work. A part that cannot extend it (it extends another class) composes one: a
 * `ComposedLifecycle` made of its own drain and abort, to which its close and destroy delegate.
 */
export abstract class Lifecycle {
  #closing: Promise<void> | null = null
  #destroying: Promise<void> | null = null
  #destroyed: (() => void) | null = null
  readonly #destroyedOnce = new Promise<void>((resolve) => (this.#destroyed = resolve))

  /** True once `close()` or `destroy()` was called: refuse new work. */
  get closed(): boolean {
    return this.#closing !== null || this.#destroying !== null
  }

  /** True once `destroy()` was called. */
  get destroyed(): boolean {
    return this.#destroying !== null
  }

  close(): Promise<void> {
    // A destroy that is done or under way decides: close does not drain after it.
    this.#closing ??= this.#destroying ?? Promise.race([this.drain(), this.#destroyedOnce])
    return this.#closing
  }

  destroy(err?: Error): Promise<void> {
    this.#destroying ??= this.abort(err).finally(() => this.#destroyed?.())
    return this.#destroying
  }

  /** Finish what is in flight; new work is already refused (`closed`). */
  protected abstract drain(): Promise<void>
  /** Stop now; fail pending work with `err` when given. */
  protected abstract abort(err: Error | undefined): Promise<void>
}

/** The contract held by a part that extends another class (an EventEmitter): its own steps, the one logic. */
export class ComposedLifecycle extends Lifecycle {
  readonly #steps: { drain(): Promise<void>; abort(err: Error | undefined): Promise<void> }

  constructor(steps: { drain(): Promise<void>; abort(err: Error | undefined): Promise<void> }) {
    super()
    this.#steps = steps
  }

  protected drain(): Promise<void> {
    return this.#steps.drain()
  }

  protected abort(err: Error | undefined): Promise<void> {
    return this.#steps.abort(err)
  }
}
