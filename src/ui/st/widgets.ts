import { SvcError } from '../../errors.js'
import type { ElementPropsMap, UiElement, WidgetBase } from '../elements.js'
import type { RunContext, WidgetSpec } from '../runtime/run-context.js'
import type {
  ButtonOptions, CheckboxOptions, DateInputOptions, DownloadButtonOptions, FileUploaderOptions, MultiselectOptions,
  NumberInputOptions, RadioOptions, SelectboxOptions, SliderOptions, TextAreaOptions, TextInputOptions, UploadedFile, WidgetOptions,
} from '../st-types.js'
import { displayString, sameValue } from './values.js'

/** What a widget needs from the container it is written into. */
export interface Emitter {
  readonly ctx: RunContext
  readonly formId: string | null
  emit<T extends keyof ElementPropsMap>(type: T, props: ElementPropsMap[T], id?: string, children?: UiElement[]): UiElement
}

export const DEFAULT_UPLOAD_MAX_BYTES = 10 * 1024 * 1024 // 10 MiB per file

export function base(em: Emitter, label: string, o: WidgetOptions): WidgetBase {
  return {
    label: String(label),
    key: o.key ?? null,
    help: o.help ?? null,
    disabled: o.disabled ?? false,
    formId: em.formId,
    labelVisibility: o.labelVisibility ?? 'visible',
  }
}

export function register<V>(em: Emitter, spec: Omit<WidgetSpec<V>, 'formId'>, serializedDefault: unknown): { id: string; value: V } {
  const r = em.ctx.widget({ ...spec, formId: em.formId })
  em.ctx.widgetDefaults.set(r.id, serializedDefault)
  return r
}

export const bad = (what: string): never => {
  throw new SvcError('SVC_ERR_UI_BAD_CALL', `invalid widget value: ${what}`)
}

export function button(em: Emitter, label: string, o: ButtonOptions = {}, submit = false): boolean {
  const type = submit ? 'formSubmitButton' : 'button'
  if (submit && em.formId === null) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `formSubmitButton("${label}") must be called on a form: const f = st.form("login"); if (f.formSubmitButton("Sign in")) { ... }`)
  }
  if (!submit && em.formId !== null) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `button("${label}") cannot be used inside a form; use formSubmitButton("${label}") to submit it`)
  }
  const onClick = o.onClick
  const { id, value } = register<boolean>(em, {
    type, label, key: o.key, identity: [], default: false, trigger: true,
    deserialize: (r) => r === true,
    onChange: onClick ? () => onClick() : undefined,
  }, false)
  em.emit(type, { ...base(em, label, o), value: false, kind: o.type ?? (submit ? 'primary' : 'secondary'), icon: o.icon ?? null, useContainerWidth: o.useContainerWidth ?? false }, id)
  return value
}

export function checkbox(em: Emitter, type: 'checkbox' | 'toggle', label: string, o: CheckboxOptions = {}): boolean {
  const def = o.value ?? false
  const toBool = (r: unknown): boolean => (typeof r === 'boolean' ? r : bad('expected a boolean'))
  const { id, value } = register<boolean>(em, { type, label, key: o.key, identity: [def], default: def, deserialize: toBool, onChange: o.onChange }, def)
  em.emit(type, { ...base(em, label, o), value }, id)
  return value
}

export function choice<T>(options: readonly T[], format: ((o: T) => string) | undefined, index: number | null | undefined, label: string) {
  const labels = options.map((opt) => (format ? format(opt) : displayString(opt)))
  const start = options.length === 0 ? null : index === undefined ? 0 : index
  if (start !== null && (!Number.isInteger(start) || start < 0 || start >= options.length)) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `"${label}": index ${start} is out of range for ${options.length} options`)
  }
  const fromIndex = (r: unknown): T | null => {
    if (r === null) return null
    if (typeof r === 'number' && Number.isInteger(r) && r >= 0 && r < options.length) return options[r]!
    return bad('option index out of range')
  }
  const fromState = (v: unknown): T | null => {
    if (v === null) return null
    const i = options.findIndex((opt) => sameValue(opt, v))
    return i < 0 ? bad('not one of the options') : options[i]!
  }
  const indexOf = (v: T | null): number | null => (v === null ? null : options.findIndex((opt) => sameValue(opt, v)))
  return { labels, start, def: start === null ? null : options[start]!, fromIndex, fromState, indexOf }
}

export function radio<T>(em: Emitter, label: string, options: readonly T[], o: RadioOptions<T> = {}): T | null {
  const c = choice(options, o.formatFunc, o.index, label)
  const { id, value } = register<T | null>(em, {
    type: 'radio', label, key: o.key, identity: [c.labels, c.start], default: c.def,
    deserialize: c.fromIndex, fromState: c.fromState, onChange: o.onChange,
  }, c.start)
  em.emit('radio', { ...base(em, label, o), options: c.labels, value: c.indexOf(value), horizontal: o.horizontal ?? false, captions: o.captions ?? null }, id)
  return value
}

export function selectbox<T>(em: Emitter, label: string, options: readonly T[], o: SelectboxOptions<T> = {}): T | null {
  const c = choice(options, o.formatFunc, o.index, label)
  const { id, value } = register<T | null>(em, {
    type: 'selectbox', label, key: o.key, identity: [c.labels, c.start], default: c.def,
    deserialize: c.fromIndex, fromState: c.fromState, onChange: o.onChange,
  }, c.start)
  em.emit('selectbox', { ...base(em, label, o), options: c.labels, value: c.indexOf(value), placeholder: o.placeholder ?? 'Choose an option' }, id)
  return value
}

export function multiselect<T>(em: Emitter, label: string, options: readonly T[], o: MultiselectOptions<T> = {}): T[] {
  const labels = options.map((opt) => (o.formatFunc ? o.formatFunc(opt) : displayString(opt)))
  const max = o.maxSelections ?? null
  const fromState = (v: unknown): T[] => {
    if (!Array.isArray(v)) return bad('expected an array')
    return v.map((item) => {
      const i = options.findIndex((opt) => sameValue(opt, item))
      return i < 0 ? bad('not one of the options') : options[i]!
    })
  }
  const def = fromState([...(o.default ?? [])])
  const deserialize = (r: unknown): T[] => {
    if (!Array.isArray(r) || (max !== null && r.length > max)) return bad('expected option indices')
    return r.map((i) => (typeof i === 'number' && Number.isInteger(i) && i >= 0 && i < options.length ? options[i]! : bad('index out of range')))
  }
  const indices = (v: T[]): number[] => v.map((x) => options.findIndex((opt) => sameValue(opt, x)))
  const { id, value } = register<T[]>(em, {
    type: 'multiselect', label, key: o.key, identity: [labels, indices(def)], default: def, deserialize, fromState, onChange: o.onChange,
  }, indices(def))
  em.emit('multiselect', { ...base(em, label, o), options: labels, value: indices(value), maxSelections: max, placeholder: o.placeholder ?? 'Choose options' }, id)
  return value
}

export function slider(em: Emitter, label: string, o: SliderOptions<number | [number, number]> = {}): number | [number, number] {
  const min = o.min ?? 0
  const max = o.max ?? 100
  const step = o.step ?? 1
  if (!(max > min)) throw new SvcError('SVC_ERR_UI_BAD_CALL', `slider("${label}"): max (${max}) must be greater than min (${min})`)
  const clamp = (n: number): number => Math.min(max, Math.max(min, n))
  const initial = o.value
  const range = Array.isArray(initial)
  const def: number | [number, number] = Array.isArray(initial) ? [clamp(initial[0]), clamp(initial[1])] : clamp(initial ?? min)
  const deserialize = (r: unknown): number | [number, number] => {
    if (range) {
      if (!Array.isArray(r) || r.length !== 2 || !r.every((n) => typeof n === 'number' && Number.isFinite(n))) return bad('expected [number, number]')
      const [a, b] = [clamp(r[0] as number), clamp(r[1] as number)]
      return a <= b ? [a, b] : [b, a]
    }
    return typeof r === 'number' && Number.isFinite(r) ? clamp(r) : bad('expected a number')
  }
  const { id, value } = register(em, { type: 'slider', label, key: o.key, identity: [min, max, step, def], default: def, deserialize, onChange: o.onChange }, def)
  em.emit('slider', { ...base(em, label, o), min, max, step, value, format: o.format ?? null }, id)
  return value
}

export function textInput(em: Emitter, type: 'textInput' | 'textArea', label: string, o: TextInputOptions & TextAreaOptions = {}): string {
  const max = o.maxChars ?? null
  const def = o.value ?? ''
  const deserialize = (r: unknown): string => (typeof r === 'string' ? (max !== null ? r.slice(0, max) : r) : bad('expected a string'))
  const { id, value } = register<string>(em, { type, label, key: o.key, identity: [def, max], default: def, deserialize, onChange: o.onChange }, def)
  const common = { ...base(em, label, o), value, placeholder: o.placeholder ?? '', maxChars: max }
  if (type === 'textInput') em.emit('textInput', { ...common, inputType: o.type ?? 'default' }, id)
  else em.emit('textArea', { ...common, height: o.height ?? null }, id)
  return value
}

export function numberInput(em: Emitter, label: string, o: NumberInputOptions<number | null> = {}): number | null {
  const min = o.min ?? null
  const max = o.max ?? null
  const def = o.value === undefined ? (min ?? 0) : o.value
  const step = o.step ?? (def !== null && !Number.isInteger(def) ? 0.01 : 1)
  const deserialize = (r: unknown): number | null => {
    if (r === null) return def === null ? null : bad('a value is required')
    if (typeof r !== 'number' || !Number.isFinite(r)) return bad('expected a number')
    return Math.min(max ?? Infinity, Math.max(min ?? -Infinity, r))
  }
  const { id, value } = register(em, { type: 'numberInput', label, key: o.key, identity: [min, max, step, def], default: def, deserialize, onChange: o.onChange }, def)
  em.emit('numberInput', { ...base(em, label, o), value, min, max, step, format: o.format ?? null, placeholder: o.placeholder ?? '' }, id)
  return value
}

function toDate(v: unknown): Date {
  if (v instanceof Date && !Number.isNaN(v.getTime())) return new Date(Date.UTC(v.getUTCFullYear(), v.getUTCMonth(), v.getUTCDate()))
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v)) {
    const d = new Date(v.slice(0, 10) + 'T00:00:00Z')
    if (!Number.isNaN(d.getTime())) return d
  }
  return bad('expected a date (YYYY-MM-DD)')
}
const isoDate = (d: Date | null): string | null => (d === null ? null : d.toISOString().slice(0, 10))

export function dateInput(em: Emitter, label: string, o: DateInputOptions<Date | string | null> = {}): Date | null {
  const def = o.value === undefined ? toDate(new Date()) : o.value === null ? null : toDate(o.value)
  const deserialize = (r: unknown): Date | null => (r === null ? (def === null ? null : bad('a date is required')) : toDate(r))
  const { id, value } = register(em, {
    type: 'dateInput', label, key: o.key, identity: [o.value === undefined ? 'today' : isoDate(def)], default: def, deserialize, onChange: o.onChange,
  }, isoDate(def))
  em.emit('dateInput', { ...base(em, label, o), value: isoDate(value), min: o.min ? isoDate(toDate(o.min)) : null, max: o.max ? isoDate(toDate(o.max)) : null }, id)
  return value
}

function acceptList(accept: string | string[] | undefined): string[] | null {
  if (accept === undefined) return null
  return (Array.isArray(accept) ? accept : [accept]).map((a) => a.trim().toLowerCase())
}

function accepted(accept: string[] | null, name: string, type: string): boolean {
  if (accept === null) return true
  const n = name.toLowerCase()
  const t = type.toLowerCase()
  return accept.some((a) => (a.startsWith('.') ? n.endsWith(a) : a.endsWith('/*') ? t.startsWith(a.slice(0, -1)) : t === a || n.endsWith('.' + a)))
}

/** The upload reference a file came in under, so the browser can name it again (removing another file). */
const kUploadRef = Symbol('svc.uploadRef')

function uploadedFile(name: string, type: string, bytes: Uint8Array, ref: string | null = null): UploadedFile {
  const file = { name, type, size: bytes.byteLength, bytes, text: () => new TextDecoder().decode(bytes) }
  if (ref !== null) Object.defineProperty(file, kUploadRef, { value: ref })
  return Object.freeze(file)
}

export function fileUploader(em: Emitter, label: string, o: FileUploaderOptions & { multiple?: boolean } = {}): UploadedFile[] | UploadedFile | null {
  const accept = acceptList(o.accept)
  const maxBytes = o.maxBytes ?? DEFAULT_UPLOAD_MAX_BYTES
  const multiple = o.multiple ?? false
  // Assigned at registration; messages (which call `deserialize`) arrive after the run.
  let id = ''
  // Files come by reference to an upload (the browser client) or inline as base64 (tests, small files).
  const fromWire = (f: unknown): UploadedFile => {
    const p = f as { name?: unknown; type?: unknown; dataBase64?: unknown; ref?: unknown }
    if (typeof p?.ref === 'string') {
      const held = (em.ctx.host.widgets.values.get(id) as UploadedFile[] | undefined)?.find((u) => (u as { [kUploadRef]?: string })[kUploadRef] === p.ref)
      if (held) return held
      const upload = em.ctx.host.uploads.take(p.ref)
      if (!upload) return bad('unknown or expired upload reference')
      if (upload.bytes.byteLength > maxBytes || !accepted(accept, upload.name, upload.type)) return bad(`file ${upload.name} is too large or not accepted`)
      return uploadedFile(upload.name, upload.type, upload.bytes, p.ref)
    }
    if (typeof p?.name !== 'string' || typeof p.dataBase64 !== 'string') return bad('file without name or data')
    const type = typeof p.type === 'string' ? p.type : 'application/octet-stream'
    const bytes = new Uint8Array(Buffer.from(p.dataBase64, 'base64'))
    if (bytes.byteLength > maxBytes || !accepted(accept, p.name, type)) return bad(`file ${p.name} is too large or not accepted`)
    return uploadedFile(p.name, type, bytes)
  }
  const deserialize = (r: unknown): UploadedFile[] => {
    if (!Array.isArray(r)) return bad('expected a list of files')
    const files = r.map(fromWire)
    return multiple ? files : files.slice(0, 1)
  }
  const fromState = (v: unknown): UploadedFile[] => (Array.isArray(v) ? (v as UploadedFile[]) : v === null ? [] : [v as UploadedFile])
  const onChange = o.onChange
  const registered = register<UploadedFile[]>(em, {
    type: 'fileUploader', label, key: o.key, identity: [accept, multiple], default: [], deserialize, fromState,
    onChange: onChange ? (files) => onChange(files) : undefined,
  }, [])
  const { value } = registered
  id = registered.id
  em.emit('fileUploader', { ...base(em, label, o), value: value.map((f) => ({ name: f.name, type: f.type, size: f.size })), accept, multiple, maxBytes }, id)
  return multiple ? value : (value[0] ?? null)
}

export function downloadButton(em: Emitter, label: string, data: string | Uint8Array | ArrayBuffer, o: DownloadButtonOptions = {}): boolean {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data instanceof Uint8Array ? data : new Uint8Array(data)
  const mime = o.mime ?? (typeof data === 'string' ? 'text/plain' : 'application/octet-stream')
  const fileName = o.fileName ?? 'download'
  const url = em.ctx.host.media.add(bytes, mime, fileName)
  const onClick = o.onClick
  const { id, value } = register<boolean>(em, {
    type: 'downloadButton', label, key: o.key, identity: [fileName], default: false, trigger: true,
    deserialize: (r) => r === true, onChange: onClick ? () => onClick() : undefined,
  }, false)
  em.emit('downloadButton', {
    ...base(em, label, o), value: false, url, fileName, mime, kind: o.type ?? 'secondary', icon: o.icon ?? null, useContainerWidth: o.useContainerWidth ?? false,
  }, id)
  return value
}
