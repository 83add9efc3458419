import { useEffect, useState } from 'preact/hooks'
import { RuntimeContext, useRuntime, useViewState } from './context.js'
import type { Runtime } from './runtime.js'
import { Nav, TopNav, flattenNav } from './shell/nav.js'
import { ErrorBanner, ReconnectBanner, RunningIndicator, StoppedBanner, Toasts } from './shell/status.js'
import { ThemeMenu } from './shell/theme-menu.js'
import { DevOverlays } from './shell/dev-overlays.js'
import { Nodes } from './render.js'
import { Icon } from './icons.js'
import { Logo } from './shell/logo.js'
import type { LogoProps } from '../wire/elements.js'

export function App({ runtime }: { runtime: Runtime }) {
  const state = useViewState(runtime)
  const [menuOpen, setMenuOpen] = useState(false)
  const navigable = state.nav.length > 1 || state.nav.some((e) => (e.children?.length ?? 0) > 0)
  const hasNav = navigable && state.navPosition === 'sidebar'
  const topNav = navigable && state.navPosition === 'top'
  // `st.logo` travels as the sidebar's first node; it is drawn by the shell, not as an element.
  const logo = state.sidebar[0]?.type === 'logo' ? (state.sidebar[0].props as unknown as LogoProps) : null
  const sidebar = logo ? state.sidebar.slice(1) : state.sidebar
  const hasSidebar = hasNav || sidebar.length > 0
  const layout = state.page?.layout ?? 'centered'
  const waitingForLoad = state.devError !== null && !state.everConnected

  useEffect(() => {
    if (!menuOpen) return
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setMenuOpen(false)
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [menuOpen])

  return (
    <RuntimeContext.Provider value={runtime}>
      <a class="svc-skip" href="#svc-main">
        Skip to content
      </a>
      <RunningIndicator running={state.running} />
      <ThemeMenu />
      <div class={`svc-app ${hasSidebar ? 'has-sidebar' : ''} ${menuOpen ? 'menu-open' : ''}`} data-layout={layout}>
        {hasSidebar ? (
          <>
            <button
              type="button"
              class="svc-menu-button"
              aria-label={menuOpen ? 'Close sidebar' : 'Open sidebar'}
              aria-expanded={menuOpen}
              aria-controls="svc-sidebar"
              onClick={() => setMenuOpen(!menuOpen)}
            >
              <span aria-hidden="true">{menuOpen ? '×' : '☰'}</span>
            </button>
            <div class="svc-scrim" onClick={() => setMenuOpen(false)} />
            <aside id="svc-sidebar" class="svc-sidebar" aria-label="Sidebar">
              {logo ? <Logo props={logo} corner="none" /> : <div class="svc-brand">{runtime.config.title}</div>}
              {hasNav ? <Nav entries={state.nav} activePath={state.notFound ? '' : (state.page?.path ?? state.path)} onNavigate={() => setMenuOpen(false)} /> : null}
              {sidebar.length > 0 ? (
                <div class="svc-sidebar-content">
                  <Nodes nodes={sidebar} />
                </div>
              ) : null}
            </aside>
          </>
        ) : null}
        {logo ? <Logo props={logo} corner={hasSidebar ? 'narrow' : 'always'} /> : null}
        <main id="svc-main" class="svc-main" tabIndex={-1}>
          {topNav ? (
            <header class="svc-topnav">
              {logo || hasSidebar ? null : <span class="svc-brand">{runtime.config.title}</span>}
              <TopNav entries={state.nav} activePath={state.notFound ? '' : (state.page?.path ?? state.path)} />
            </header>
          ) : null}
          <div class={state.notFound ? 'svc-block-container is-not-found' : 'svc-block-container'}>
            {/* A tab that never had a session while the app does not load waits for the next good save: the overlay says why, alone. */}
            {waitingForLoad ? null : <ReconnectBanner state={state} />}
            <ErrorBanner message={state.error} />
            <StoppedBanner seconds={state.stoppedAfter} />
            {state.page?.breadcrumb && state.page.breadcrumb.length > 0 ? (
              <nav class="svc-breadcrumb" aria-label="Breadcrumb">
                {state.page.breadcrumb.map((b, i) => (
                  <span key={i}>{b}</span>
                ))}
              </nav>
            ) : null}
            {state.notFound && state.main.length === 0 ? <NotFound state={state} /> : null}
            {state.notFound && state.main.length > 0 ? <p class="svc-eyebrow">404</p> : null}
            {state.page === null ? waitingForLoad ? null : <Skeleton /> : <Nodes nodes={state.main} />}
          </div>
        </main>
      </div>
      <Toasts toasts={state.toasts} />
      <DevOverlays error={state.devError} report={state.typeErrors} pageWaiting={waitingForLoad} />
    </RuntimeContext.Provider>
  )
}

function NotFound({ state }: { state: { nav: Parameters<typeof flattenNav>[0]; path: string } }) {
  return (
    <section class="svc-not-found" aria-labelledby="svc-nf-title" data-testid="not-found">
      <p class="svc-eyebrow">404</p>
      <h1 id="svc-nf-title" class="svc-title">Page not found</h1>
      <p class="svc-muted">
        There is no page at <code class="svc-inline-code">{state.path}</code>. Try one of these:
      </p>
      <PageList entries={flattenNav(state.nav)} />
    </section>
  )
}

function PageList({ entries }: { entries: ReturnType<typeof flattenNav> }) {
  return (
    <ul class="svc-page-list" role="list">
      {entries.map((e) => (
        <li key={e.path}>
          <PageLink path={e.path} title={e.title} icon={e.icon} />
        </li>
      ))}
    </ul>
  )
}

function PageLink({ path, title, icon }: { path: string; title: string; icon: string | null }) {
  const rt = useRuntime()
  return (
    <a
      class="svc-page-card"
      href={rt.href(path)}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
        e.preventDefault()
        rt.navigate(path)
      }}
    >
      <span class="svc-nav-icon" aria-hidden="true">
        <Icon value={icon ?? ':material/description:'} />
      </span>
      <span>{title}</span>
      <span class="svc-muted svc-page-card-path">{path}</span>
    </a>
  )
}

function Skeleton() {
  return (
    <div class="svc-skeleton" aria-hidden="true">
      <div class="svc-skeleton-line is-title" />
      <div class="svc-skeleton-line" />
      <div class="svc-skeleton-line is-short" />
    </div>
  )
}
