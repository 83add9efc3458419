/**
 * Control flow of a page run. These are thrown through the page function; a page that catches
 * everything with `catch (e)` should rethrow them (`if (isRunSignal(e)) throw e`).
 */

const kSignal = Symbol.for('svc.ui.signal')

abstract class RunSignal extends Error {
  readonly [kSignal] = true
}

/** A newer interaction replaced this run; its remaining `st` calls are refused. */
export class RunAborted extends RunSignal {
  constructor() {
    super('this page run was replaced by a newer one')
    this.name = 'RunAborted'
  }
}

/** `st.rerun()`. */
export class RerunRequested extends RunSignal {
  constructor() {
    super('st.rerun() was called')
    this.name = 'RerunRequested'
  }
}

/** `st.stop()`. */
export class StopRequested extends RunSignal {
  constructor() {
    super('st.stop() was called')
    this.name = 'StopRequested'
  }
}

/** `st.switchPage(path)`. */
export class SwitchPageRequested extends RunSignal {
  constructor(readonly path: string) {
    super(`st.switchPage(${JSON.stringify(path)}) was called`)
    this.name = 'SwitchPageRequested'
  }
}

export function isRunSignal(value: unknown): value is RunSignal {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kSignal] === true
}
