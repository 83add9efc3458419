import type { ComponentChildren } from 'preact'
import type { ButtonProps, DownloadButtonProps, FormSubmitButtonProps } from '../../wire/elements.js'
import { useEffect, useState } from 'preact/hooks'
import { useForm, useRuntime } from '../context.js'
import type { DownloadReady } from '../runtime.js'
import type { ElementProps } from '../elements/types.js'
import { Help } from './field.js'
import { Icon } from '../icons.js'

function buttonClass(kind: ButtonProps['kind'], fullWidth: boolean): string {
  return `svc-button is-${kind}${fullWidth ? ' is-full' : ''}`
}

function Label({ icon, label }: { icon: string | null; label: string }) {
  return (
    <>
      {icon ? (
        <span class="svc-button-icon" aria-hidden="true">
          <Icon value={icon} />
        </span>
      ) : null}
      <span>{label}</span>
    </>
  )
}

function Wrap({ help, children, testId, label }: { help: string | null; children: ComponentChildren; testId: string; label: string }) {
  return (
    <div class="svc-button-row" data-testid={testId} data-label={label}>
      {children}
      {help ? <Help text={help} /> : null}
    </div>
  )
}

/** Sends a one-run trigger. Outside forms only (the server rejects buttons inside forms). */
export function Button({ node, props }: ElementProps<ButtonProps>) {
  const rt = useRuntime()
  return (
    <Wrap help={props.help} testId="button" label={props.label}>
      <button
        type="button"
        class={buttonClass(props.kind, props.useContainerWidth)}
        disabled={props.disabled}
        onClick={() => rt.sendWidget(node.id, true, true)}
      >
        <Label icon={props.icon} label={props.label} />
      </button>
    </Wrap>
  )
}

export function FormSubmitButton({ node, props }: ElementProps<FormSubmitButtonProps>) {
  const form = useForm()
  const rt = useRuntime()
  return (
    <Wrap help={props.help} testId="formSubmitButton" label={props.label}>
      <button
        type="submit"
        class={buttonClass(props.kind, props.useContainerWidth)}
        disabled={props.disabled}
        onClick={(e) => {
          e.preventDefault()
          if (form) form.submit(node.id)
          else rt.submitForm(props.formId ?? '', { [node.id]: true })
        }}
      >
        <Label icon={props.icon} label={props.label} />
      </button>
    </Wrap>
  )
}

/**
 * A real download link (the browser saves the file) that also reports the click. When the page
 * makes the data on click (`url` null) the button asks the server for it first, then saves it.
 */
export function DownloadButton({ node, props }: ElementProps<DownloadButtonProps>) {
  const rt = useRuntime()
  // null: idle; '': the server is making the file; text: why it could not.
  const [state, setState] = useState<string | null>(null)
  const click = () => props.rerun !== false && rt.sendWidget(node.id, true, true)
  useEffect(
    () =>
      rt.onAnswer(node.id, (answer) => {
        const m = answer as DownloadReady
        setState(m.message)
        if (m.url === null) return
        const a = document.createElement('a')
        a.href = m.url
        a.download = m.fileName
        a.click()
        click()
      }),
    [rt, node.id],
  )
  const cls = buttonClass(props.kind, props.useContainerWidth)
  const label = <Label icon={props.icon ?? '⤓'} label={props.label} />
  return (
    <Wrap help={props.help} testId="downloadButton" label={props.label}>
      {props.disabled || props.url === null ? (
        <button
          type="button"
          class={cls}
          disabled={props.disabled || state === ''}
          onClick={() => {
            setState('')
            rt.requestDownload(node.id)
          }}
        >
          {label}
        </button>
      ) : (
        <a class={cls} href={props.url} download={props.fileName} type={props.mime} onClick={click}>
          {label}
        </a>
      )}
      {state ? (
        <span class="svc-field-error" role="alert">
          {state}
        </span>
      ) : null}
    </Wrap>
  )
}
