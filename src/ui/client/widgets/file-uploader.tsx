import { useRef, useState } from 'preact/hooks'
import type { FileUploaderProps, UploadedFilePayload } from '../../wire/elements.js'
import { useRuntime } from '../context.js'
import type { Runtime } from '../runtime.js'
import type { ElementProps } from '../elements/types.js'
import { domId, Field, useWidgetValue } from './field.js'

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`
  return `${(n / (1024 * 1024)).toFixed(1)} MB`
}

/** The file goes to the upload endpoint as it is read from disk; the widget message carries its reference. */
async function sendFile(rt: Runtime, file: File): Promise<UploadedFilePayload> {
  const ref = await rt.upload(file)
  return { name: file.name, type: file.type || 'application/octet-stream', size: file.size, ref }
}

/** Drop zone plus a real file input (the label makes the whole zone clickable and focusable). */
export function FileUploader({ node, props }: ElementProps<FileUploaderProps>) {
  const w = useWidgetValue<unknown>(node, props.value)
  const rt = useRuntime()
  const [over, setOver] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  // Payloads sent from this page view, so one file can be removed without re-picking the rest.
  const sent = useRef<UploadedFilePayload[]>([])
  const id = domId(node.id)
  // What is shown: the server's files, or inside a form the files picked for the next submit.
  const held = w.value as FileUploaderProps['value']
  // The server overrode the files (a reset): only payloads of files it still holds may go again.
  const override = useRef(w.overriddenAt)
  if (override.current !== w.overriddenAt) {
    override.current = w.overriddenAt
    sent.current = sent.current.filter((p) => held.some((f) => f.name === p.name && f.size === p.size))
  }

  const accept = (f: File) => {
    if (!props.accept || props.accept.length === 0) return true
    const name = f.name.toLowerCase()
    return props.accept.some((a) => {
      const t = a.toLowerCase()
      if (t.startsWith('.')) return name.endsWith(t)
      if (t.endsWith('/*')) return f.type.startsWith(t.slice(0, -1))
      return f.type === t
    })
  }

  const take = async (list: FileList | null) => {
    if (!list || list.length === 0) return
    const files = Array.from(list).slice(0, props.multiple ? undefined : 1)
    const refused = files.find((f) => !accept(f))
    if (refused) return setProblem(`${refused.name}: this file type is not accepted (${props.accept?.join(', ')})`)
    const big = files.find((f) => f.size > props.maxBytes)
    if (big) return setProblem(`${big.name} is ${formatBytes(big.size)}; the limit is ${formatBytes(props.maxBytes)}`)
    setProblem(null)
    setBusy(true)
    try {
      const payloads = await Promise.all(files.map((f) => sendFile(rt, f)))
      sent.current = props.multiple ? [...sent.current.filter((p) => !payloads.some((q) => q.name === p.name)), ...payloads] : payloads
      w.commit(sent.current)
    } catch (err) {
      setProblem(`The file could not be uploaded: ${(err as Error).message}`)
    } finally {
      setBusy(false)
    }
  }

  const remove = (name: string) => {
    const rest = held.filter((f) => f.name !== name)
    const known = rest.every((f) => sent.current.some((p) => p.name === f.name))
    sent.current = known ? sent.current.filter((p) => p.name !== name) : []
    w.commit(sent.current)
  }

  return (
    <Field node={node} base={props} controlId={id}>
      <label
        class={`svc-dropzone${over ? ' is-over' : ''}${props.disabled ? ' is-disabled' : ''}`}
        onDragOver={(e) => {
          e.preventDefault()
          if (!props.disabled) setOver(true)
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault()
          setOver(false)
          if (!props.disabled) void take(e.dataTransfer?.files ?? null)
        }}
      >
        <input
          id={id}
          type="file"
          class="svc-visually-hidden"
          multiple={props.multiple}
          accept={props.accept?.join(',') ?? undefined}
          disabled={props.disabled}
          onChange={(e) => {
            void take(e.currentTarget.files)
            e.currentTarget.value = ''
          }}
        />
        <span class="svc-dropzone-icon" aria-hidden="true">
          ⇪
        </span>
        <span class="svc-dropzone-text">
          <strong>{busy ? 'Uploading…' : 'Drop files here'}</strong>
          <span class="svc-muted">
            or click to browse · up to {formatBytes(props.maxBytes)}
            {props.accept && props.accept.length > 0 ? ` · ${props.accept.join(', ')}` : ''}
          </span>
        </span>
      </label>
      {problem ? (
        <p class="svc-field-error" role="alert">
          {problem}
        </p>
      ) : null}
      {held.length > 0 ? (
        <ul class="svc-files" role="list">
          {held.map((f) => (
            <li key={f.name} class="svc-file">
              <span class="svc-file-icon" aria-hidden="true">
                📄
              </span>
              <span class="svc-file-name">{f.name}</span>
              <span class="svc-muted">{formatBytes(f.size)}</span>
              <button type="button" class="svc-icon-button" aria-label={`Remove ${f.name}`} disabled={props.disabled} onClick={() => remove(f.name)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </Field>
  )
}
