import { SvcError } from '../../errors.js'
import type { UiElement } from '../wire/elements.js'
import type { RunContext } from './run-context.js'
import { RerunRequested, StopRequested, SwitchPageRequested } from './signals.js'
import type { LogoOptions, MediaSource, QueryParams, SessionState, St, StBrowserStorage, StContainer, StContext, StCookies, StUserStorage, ToastOptions } from '../st-types.js'
import { Container } from './container.js'
import type { RegisteredSecrets } from '../../secrets/register.js'
import { clearAccessToken } from '../../auth/ui.js'
import type { PageIdentity, StUser } from '../../auth/user.js'
import { effectProps, logoProps } from './effects.js'
import type { TaskDefinition, TaskHandle, TaskOptions } from '../tasks/task-types.js'

/** The logo's node id: one per run, at the top of the sidebar list (the client shows it apart from the sidebar's elements). */
const LOGO_ID = 's.logo'

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
      // Callbacks hold the `st` of the run that drew them, so this also notes their writes.
      if (typeof prop === 'string') ctx.host.widgets.revisions.noteKeyWrite(prop)
      target[prop as string] = value
      return true
    },
    // Deleting a widget's key resets the widget: drawn later in this run, it starts at its
    // default; drawn already, it shows its default in this run's render.
    deleteProperty(target, prop) {
      if (typeof prop === 'string') {
        const id = ctx.current ? ctx.keys.get(prop) : undefined
        if (id !== undefined) ctx.resetAfterDraw.add(id)
        else ctx.host.widgets.revisions.noteKeyWrite(prop)
      }
      return delete target[prop as string]
    },
  })
}

/** `st.sidebar` of a fragment's `st`: a fragment reruns alone, so it owns no part of the sidebar. */
class FragmentSidebar extends Container {
  override emit(): never {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', 'st.sidebar cannot be written from inside st.fragment(); write to the sidebar outside the fragment')
  }
}

class StRoot extends Container implements St {
  readonly sidebar: StContainer
  readonly sessionState: SessionState
  readonly queryParams: QueryParams
  readonly context: StContext
  /** The fragment this `st` writes into, or null for the page's own. */
  readonly #fragment: string | null

  get secrets(): RegisteredSecrets {
    return this.ctx.host.secrets
  }

  constructor(ctx: RunContext, target?: FragmentTarget) {
    super(ctx, target?.list ?? ctx.main, target?.id ?? 'm', null)
    this.sidebar = target ? new FragmentSidebar(ctx, [], target.id, null) : new Container(ctx, ctx.sidebar, 's', null)
    this.sessionState = sessionStateProxy(ctx)
    this.queryParams = ctx.host.query
    this.context = ctx.host.context
    this.#fragment = target?.id ?? null
  }

  get cookies(): StCookies {
    return this.ctx.host.cookies
  }

  get localStorage(): StBrowserStorage {
    return this.ctx.host.localStore
  }

  get tabStorage(): StBrowserStorage {
    return this.ctx.host.tabStore
  }

  get userStorage(): StUserStorage {
    return this.ctx.host.userStorage
  }

  task<I, R, P>(key: string, task: TaskDefinition<I, R, P>, options: TaskOptions<I> = {}): TaskHandle<I, R, P> {
    this.ctx.check()
    const handle = this.ctx.host.task(key, task, options)
    let where = this.ctx.taskReads.get(key)
    if (!where) this.ctx.taskReads.set(key, (where = new Set()))
    where.add(this.#fragment)
    return handle
  }

  toast(body: string, o: ToastOptions = {}): void {
    this.ctx.check()
    this.ctx.host.toast(String(body), o.icon ?? null)
  }

  logo(image: MediaSource, o?: LogoOptions): void {
    this.ctx.check()
    if (this.sidebar instanceof FragmentSidebar) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', 'st.logo() cannot be called from inside st.fragment(); call it in the page function')
    }
    const props = logoProps(this.ctx, image, o)
    const list = this.ctx.sidebar
    const at = list.findIndex((n) => n.id === LOGO_ID)
    if (at >= 0) list.splice(at, 1)
    list.unshift({ id: LOGO_ID, type: 'logo', props })
    this.ctx.touch()
  }

  balloons(): void {
    this.emit('balloons', effectProps(this.ctx))
  }

  snow(): void {
    this.emit('snow', effectProps(this.ctx))
  }

  rerun(): never {
    this.ctx.check()
    throw new RerunRequested()
  }

  stop(): never {
    this.ctx.check()
    throw new StopRequested()
  }

  get user(): StUser {
    return this.ctx.host.user
  }

  login(provider?: string): never {
    this.ctx.check()
    const identity = this.#identity('login')
    const name = provider ?? identity.providers[0]!
    if (!identity.providers.includes(name)) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `st.login(${JSON.stringify(provider)}): no login named so; this app has ${identity.providers.map((p) => JSON.stringify(p)).join(', ')} (the name given to app.attachOidcLogin)`)
    }
    this.ctx.host.redirect(identity.loginUrl(name, this.#here()))
    throw new StopRequested()
  }

  logout(): never {
    this.ctx.check()
    const identity = this.#identity('logout')
    clearAccessToken(this)
    this.ctx.host.redirect(identity.logoutUrl(this.#here()))
    throw new StopRequested()
  }

  #identity(call: string): PageIdentity {
    const identity = this.ctx.host.identity
    if (!identity) throw new SvcError('SVC_ERR_UI_BAD_CALL', `st.${call}(): this app has no login; call app.attachOidcLogin(client) in the app module (docs/auth.md)`)
    return identity
  }

  /** This page and its query: where the browser comes back to. */
  #here(): string {
    const query = this.queryParams.toString()
    return this.ctx.host.path + (query ? `?${query}` : '')
  }

  resetWidget(key: string): void {
    this.ctx.check()
    const k = String(key)
    const known = this.ctx.keys.has(k) || [...this.ctx.host.widgets.metas.values()].some((m) => m.key === k)
    if (!known) {
      const keys = [...new Set([...this.ctx.keys.keys(), ...[...this.ctx.host.widgets.metas.values()].flatMap((m) => (m.key === null ? [] : [m.key]))])]
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `st.resetWidget(${JSON.stringify(k)}): no widget with that key was drawn in this run or the last one (keys: ${keys.join(', ') || 'none'})`)
    }
    delete this.sessionState[k]
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

/** Where a fragment's `st` writes: the fragment node's id and its children. */
export interface FragmentTarget {
  id: string
  list: UiElement[]
}

/** The `st` object of one run; with `target`, the `st` a fragment function gets. */
export function createSt(ctx: RunContext, target?: FragmentTarget): St {
  ctx.stFor = (t) => new StRoot(ctx, t)
  return new StRoot(ctx, target)
}
