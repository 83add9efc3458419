import { SvcError } from '../../errors.js'
import type { RunContext } from '../runtime/run-context.js'
import { RerunRequested, StopRequested, SwitchPageRequested } from '../runtime/signals.js'
import type { QueryParams, SessionState, St, StContainer, StContext, ToastOptions } from '../st-types.js'
import { Container } from './container.js'

/**
 * `st.sessionState`: the session's state bag. Writing the key of a widget that this run has
 * already rendered is refused (the widget showed the old value; Streamlit refuses it too).
 */
function sessionStateProxy(ctx: RunContext): SessionState {
  const state = ctx.host.state
  return new Proxy(state, {
    set(target, prop, value) {
      if (typeof prop === 'string' && ctx.current && ctx.keys.has(prop)) {
        throw new SvcError(
          'SVC_ERR_UI_WIDGET_STATE',
          `st.sessionState.${prop} cannot be changed after the widget with key "${prop}" was created in this run; set it before the widget, or in the widget's onChange callback`,
        )
      }
      target[prop as string] = value
      return true
    },
  })
}

class StRoot extends Container implements St {
  readonly sidebar: StContainer
  readonly sessionState: SessionState
  readonly queryParams: QueryParams
  readonly context: StContext

  constructor(ctx: RunContext) {
    super(ctx, ctx.main, 'm', null)
    this.sidebar = new Container(ctx, ctx.sidebar, 's', null)
    this.sessionState = sessionStateProxy(ctx)
    this.queryParams = ctx.host.query
    this.context = ctx.host.context
  }

  toast(body: string, o: ToastOptions = {}): void {
    this.ctx.check()
    this.ctx.host.toast(String(body), o.icon ?? null)
  }

  rerun(): never {
    this.ctx.check()
    throw new RerunRequested()
  }

  stop(): never {
    this.ctx.check()
    throw new StopRequested()
  }

  switchPage(path: string): never {
    this.ctx.check()
    const p = path.split(/[?#]/)[0]!
    if (!this.ctx.host.hasPage(p)) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `st.switchPage(${JSON.stringify(path)}): no page is registered at that path; pass a path given to app.page()`)
    }
    throw new SwitchPageRequested(path)
  }
}

/** The `st` object of one run. */
export function createSt(ctx: RunContext): St {
  return new StRoot(ctx)
}
