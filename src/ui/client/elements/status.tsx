import { useState } from 'preact/hooks'
import type { AlertProps, ExceptionProps, ProgressProps, SpinnerProps } from '../../wire/elements.js'
import type { ElementProps } from './types.js'
import { Icon } from '../icons.js'

const DEFAULT_ICONS = { success: '✓', info: 'i', warning: '!', error: '✕' } as const
type AlertKind = keyof typeof DEFAULT_ICONS

function Alert({ kind, props }: { kind: AlertKind; props: AlertProps }) {
  return (
    <div class={`svc-alert svc-alert-${kind}`} role={kind === 'error' || kind === 'warning' ? 'alert' : 'status'} data-testid={kind}>
      <span class={props.icon ? 'svc-alert-icon is-custom' : 'svc-alert-icon'} aria-hidden="true">
        {props.icon ? <Icon value={props.icon} /> : DEFAULT_ICONS[kind]}
      </span>
      <div class="svc-alert-body svc-markdown" dangerouslySetInnerHTML={{ __html: props.html }} />
    </div>
  )
}

export const Success = ({ props }: ElementProps<AlertProps>) => <Alert kind="success" props={props} />
export const Info = ({ props }: ElementProps<AlertProps>) => <Alert kind="info" props={props} />
export const Warning = ({ props }: ElementProps<AlertProps>) => <Alert kind="warning" props={props} />
export const ErrorAlert = ({ props }: ElementProps<AlertProps>) => <Alert kind="error" props={props} />

export function Exception({ props }: ElementProps<ExceptionProps>) {
  // Shown at once, as Streamlit shows a traceback; the button folds it away.
  const [open, setOpen] = useState(true)
  return (
    <div class="svc-alert svc-alert-error svc-exception" role="alert" data-testid="exception">
      <span class="svc-alert-icon" aria-hidden="true">
        ✕
      </span>
      <div class="svc-alert-body">
        <div class="svc-exception-title">
          {props.hidden ? <strong>{props.message}</strong> : <><strong>{props.name}</strong>: {props.message}</>}
        </div>
        {props.requestId ? (
          <div class="svc-exception-request" data-testid="exception-request-id">
            Request ID: <code>{props.requestId}</code>
          </div>
        ) : null}
        {props.stack ? (
          <>
            <button type="button" class="svc-link-button" aria-expanded={open} onClick={() => setOpen(!open)}>
              {open ? 'Hide traceback' : 'Show traceback'}
            </button>
            {open ? <pre class="svc-stacktrace">{props.stack}</pre> : null}
          </>
        ) : null}
      </div>
    </div>
  )
}

export function Progress({ props }: ElementProps<ProgressProps>) {
  const pct = Math.round(Math.min(1, Math.max(0, props.value)) * 100)
  return (
    <div class="svc-progress">
      {props.text ? <div class="svc-progress-text">{props.text}</div> : null}
      <div class="svc-progress-track" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct} aria-label={props.text ?? 'Progress'}>
        <div class="svc-progress-bar" style={{ width: `${pct}%` }} />
      </div>
    </div>
  )
}

export function Spinner({ props }: ElementProps<SpinnerProps>) {
  return (
    <div class="svc-spinner" role="status">
      <span class="svc-dot-spinner" aria-hidden="true" />
      <span>{props.text}</span>
    </div>
  )
}
