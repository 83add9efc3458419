import type { Toast, ViewState } from '../runtime.js'
import { useRuntime } from '../context.js'
import { Icon } from '../icons.js'

/** Shown once a session existed and the socket is down: widgets keep working but queue. */
export function ReconnectBanner({ state }: { state: ViewState }) {
  const rt = useRuntime()
  if (state.status === 'connected') return null
  if (!state.everConnected) {
    return (
      <div class="svc-banner svc-banner-connecting" role="status" aria-live="polite">
        <span class="svc-dot-spinner" aria-hidden="true" />
        Connecting…
      </div>
    )
  }
  return (
    <div class="svc-banner" role="status" aria-live="polite" data-testid="reconnect-banner">
      <span class="svc-dot-spinner" aria-hidden="true" />
      <span>Connection lost. Reconnecting…</span>
      <button type="button" class="svc-banner-action" onClick={() => rt.retryNow()}>
        Retry now
      </button>
    </div>
  )
}

/** A thin bar on top plus a pill; both fade in only for runs that take a moment. */
export function RunningIndicator({ running }: { running: boolean }) {
  return (
    <>
      <div class={running ? 'svc-topbar is-running' : 'svc-topbar'} aria-hidden="true" />
      <div class={running ? 'svc-running is-running' : 'svc-running'} role="status" aria-live="polite">
        {running ? (
          <>
            <span class="svc-dot-spinner" aria-hidden="true" />
            <span>Running…</span>
          </>
        ) : null}
      </div>
    </>
  )
}

export function Toasts({ toasts }: { toasts: Toast[] }) {
  const rt = useRuntime()
  return (
    <div class="svc-toasts" aria-live="polite" role="region" aria-label="Notifications">
      {toasts.map((t) => (
        <div key={t.id} class="svc-toast" data-testid="toast">
          {t.icon ? (
            <span class="svc-toast-icon" aria-hidden="true">
              <Icon value={t.icon} />
            </span>
          ) : null}
          <span class="svc-toast-body">{t.body}</span>
          <button type="button" class="svc-icon-button" aria-label="Dismiss notification" onClick={() => rt.dismissToast(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  )
}

export function ErrorBanner({ message }: { message: string | null }) {
  const rt = useRuntime()
  if (message === null) return null
  return (
    <div class="svc-alert svc-alert-error svc-session-error" role="alert">
      <div class="svc-alert-body">{message}</div>
      <button type="button" class="svc-icon-button" aria-label="Dismiss error" onClick={() => rt.dismissError()}>
        ×
      </button>
    </div>
  )
}

/** The last run was stopped for taking too long (`ui_run_timeout_s`): say so, and offer to run it again. */
export function StoppedBanner({ seconds }: { seconds: number | null }) {
  const rt = useRuntime()
  if (seconds === null) return null
  return (
    <div class="svc-alert svc-alert-warning svc-session-error svc-stopped" role="alert" data-testid="run-stopped">
      <div class="svc-alert-body">This page took longer than {seconds} s and was stopped.</div>
      <button type="button" class="svc-banner-action" onClick={() => rt.rerunStopped()}>
        Rerun
      </button>
    </div>
  )
}
