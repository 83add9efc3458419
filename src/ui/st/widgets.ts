import { SvcError } from '../../errors.js'
import type { WidgetBase } from '../wire/elements.js'
import type { Emitter, WidgetSpec } from './run-context.js'
import type {
  ButtonOptions, CheckboxOptions, DateInputOptions, DownloadButtonOptions, DownloadData, DownloadSource, FileUploaderOptions, MultiselectOptions,
  DateValue, NumberInputOptions, RadioOptions, SelectboxOptions, SliderOptions, TextAreaOptions, TextInputOptions, UploadedFile, WidgetOptions,
} from '../st-types.js'
import { checkFileName, checkMime } from '../media-headers.js'
import { bad, displayString, sameValue } from './values.js'
import { acceptList, fileRules } from './upload-files.js'

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
    type, label, key: o.key, identity: [], default: false, trigger: true, disabled: o.disabled,
    deserialize: (r) => r === true,
    onChange: onClick ? () => onClick() : undefined,
  }, false)
  em.emit(type, { ...base(em, label, o), value: false, kind: o.type ?? (submit ? 'primary' : 'secondary'), icon: o.icon ?? null, useContainerWidth: o.useContainerWidth ?? false }, id)
  return value
}

export function checkbox(em: Emitter, type: 'checkbox' | 'toggle', label: string, o: CheckboxOptions = {}): boolean {
  const def = o.value ?? false
  const toBool = (r: unknown): boolean => (typeof r === 'boolean' ? r : bad('expected a boolean'))
  const { id, value } = register<boolean>(em, { type, label, key: o.key, identity: [def], default: def, disabled: o.disabled, deserialize: toBool, onChange: o.onChange }, def)
  em.emit(type, { ...base(em, label, o), value }, id)
  return value
}

export function choice<T>(options: readonly T[], format: ((o: T) => string) | undefined, index: number | null | undefined, label: string) {
  const labels = options.map((opt) => (format ? format(opt) : displayString(opt)))
  const start = options.length === 0 ? null : index === undefined ? 0 : index
  if (start !== null && (!Number.isInteger(start) || start < 0 || start >= options.length)) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `"${label}": index ${start} is out of range for ${options.length} options`)
  }
  // The browser can only send "nothing chosen" while nothing was (its placeholder is not choosable).
  const fromIndex = (r: unknown): T | null => {
    if (r === null) return start === null ? null : bad('an option must be chosen')
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
    type: 'radio', label, key: o.key, identity: [c.labels, c.start], default: c.def, disabled: o.disabled,
    deserialize: c.fromIndex, fromState: c.fromState, onChange: o.onChange,
  }, c.start)
  em.emit('radio', { ...base(em, label, o), options: c.labels, value: c.indexOf(value), horizontal: o.horizontal ?? false, captions: o.captions ?? null }, id)
  return value
}

export function selectbox<T>(em: Emitter, label: string, options: readonly T[], o: SelectboxOptions<T> = {}): T | null {
  const c = choice(options, o.formatFunc, o.index, label)
  const { id, value } = register<T | null>(em, {
    type: 'selectbox', label, key: o.key, identity: [c.labels, c.start], default: c.def, disabled: o.disabled,
    deserialize: c.fromIndex, fromState: c.fromState, onChange: o.onChange,
  }, c.start)
  em.emit('selectbox', { ...base(em, label, o), options: c.labels, value: c.indexOf(value), placeholder: o.placeholder ?? 'Choose an option' }, id)
  return value
}

export function multiselect<T>(em: Emitter, label: string, options: readonly T[], o: MultiselectOptions<T> = {}): T[] {
  const labels = options.map((opt) => (o.formatFunc ? o.formatFunc(opt) : displayString(opt)))
  const max = o.maxSelections ?? null
  const fromIndices = (idx: number[]): T[] => {
    if (new Set(idx).size !== idx.length) return bad('an option is chosen twice')
    if (max !== null && idx.length > max) return bad(`more than ${max} options chosen`)
    return idx.map((i) => options[i]!)
  }
  const fromState = (v: unknown): T[] => {
    if (!Array.isArray(v)) return bad('expected an array')
    return fromIndices(v.map((item) => {
      const i = options.findIndex((opt) => sameValue(opt, item))
      return i < 0 ? bad('not one of the options') : i
    }))
  }
  let def: T[]
  try {
    def = fromState([...(o.default ?? [])])
  } catch (err) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `multiselect("${label}"): default ${JSON.stringify(o.default)} does not fit (${(err as Error).message.replace(/^invalid widget value: /, '')})`)
  }
  const deserialize = (r: unknown): T[] => {
    if (!Array.isArray(r)) return bad('expected option indices')
    return fromIndices(r.map((i) => (typeof i === 'number' && Number.isInteger(i) && i >= 0 && i < options.length ? i : bad('index out of range'))))
  }
  const indices = (v: T[]): number[] => v.map((x) => options.findIndex((opt) => sameValue(opt, x)))
  const { id, value } = register<T[]>(em, {
    type: 'multiselect', label, key: o.key, identity: [labels, indices(def)], default: def, disabled: o.disabled, deserialize, fromState, onChange: o.onChange,
  }, indices(def))
  em.emit('multiselect', { ...base(em, label, o), options: labels, value: indices(value), maxSelections: max, placeholder: o.placeholder ?? 'Choose options' }, id)
  return value
}

/** Within [min, max] and on the step grid from `min` (as a range input sends), or one of `allowed`. */
export function onGrid(n: unknown, min: number, max: number, step: number, allowed: readonly number[]): number {
  if (typeof n !== 'number' || !Number.isFinite(n)) return bad('expected a number')
  if (allowed.includes(n)) return n
  if (n < min || n > max) return bad(`${n} is outside ${min}..${max}`)
  if (n === max) return n
  const steps = (n - min) / step
  const k = Math.round(steps)
  // Decimal steps (0.1) do not divide exactly in binary floating point: find the step with a
  // tolerance, then take only its exact value, written with the decimals of min and step (what a
  // browser's range input sends: 0.3, never 0.30000000000000004; 30, never 30.000000000000004).
  const exact = Number((min + k * step).toFixed(decimalsOf(min, step)))
  if (Math.abs(steps - k) > 1e-7 || n !== exact) return bad(`${n} is not a step of ${step} from ${min}`)
  return n
}

/** How many decimals write both numbers exactly (0.25 → 2, 10 → 0, 1e-7 → 7), at most 20. */
function decimalsOf(...ns: number[]): number {
  let d = 0
  for (const n of ns) while (d < 20 && Number(n.toFixed(d)) !== n) d++
  return d
}

export function slider(em: Emitter, label: string, o: SliderOptions<number | [number, number]> = {}): number | [number, number] {
  const min = o.min ?? 0
  const max = o.max ?? 100
  const step = o.step ?? 1
  if (!(max > min)) throw new SvcError('SVC_ERR_UI_BAD_CALL', `slider("${label}"): max (${max}) must be greater than min (${min})`)
  if (!(step > 0) || !Number.isFinite(step)) throw new SvcError('SVC_ERR_UI_BAD_CALL', `slider("${label}"): step must be a number greater than 0, got ${String(step)}`)
  const clamp = (n: number): number => Math.min(max, Math.max(min, n))
  const initial = o.value
  const range = Array.isArray(initial)
  const def: number | [number, number] = Array.isArray(initial) ? [clamp(initial[0]), clamp(initial[1])] : clamp(initial ?? min)
  // The default may sit between steps; the browser keeps it until the thumb moves.
  const allowed = Array.isArray(def) ? def : [def]
  const deserialize = (r: unknown): number | [number, number] => {
    if (!range) return onGrid(r, min, max, step, allowed)
    if (!Array.isArray(r) || r.length !== 2) return bad('expected [number, number]')
    const [a, b] = [onGrid(r[0], min, max, step, allowed), onGrid(r[1], min, max, step, allowed)]
    return a <= b ? [a, b] : bad(`${a} is above ${b}`)
  }
  const { id, value } = register(em, { type: 'slider', label, key: o.key, identity: [min, max, step, def], default: def, disabled: o.disabled, deserialize, onChange: o.onChange }, def)
  em.emit('slider', { ...base(em, label, o), min, max, step, value, format: o.format ?? null }, id)
  return value
}

export function textInput(em: Emitter, type: 'textInput' | 'textArea', label: string, o: TextInputOptions & TextAreaOptions = {}): string {
  const max = o.maxChars ?? null
  const def = o.value ?? ''
  // The browser's maxlength counts UTF-16 code units, as `length` does.
  const deserialize = (r: unknown): string => (typeof r !== 'string' ? bad('expected a string') : max !== null && r.length > max && r !== def ? bad(`longer than ${max} characters`) : r)
  const { id, value } = register<string>(em, { type, label, key: o.key, identity: [def, max], default: def, disabled: o.disabled, deserialize, onChange: o.onChange }, def)
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
  // The browser clamps to min/max before it sends; `step` only sizes the +/- buttons.
  const deserialize = (r: unknown): number | null => {
    if (r === null) return def === null ? null : bad('a value is required')
    if (typeof r !== 'number' || !Number.isFinite(r)) return bad('expected a number')
    if (r === def) return r
    if ((min !== null && r < min) || (max !== null && r > max)) return bad(`${r} is outside ${min ?? '-∞'}..${max ?? '∞'}`)
    return r
  }
  const { id, value } = register(em, { type: 'numberInput', label, key: o.key, identity: [min, max, step, def], default: def, disabled: o.disabled, deserialize, onChange: o.onChange }, def)
  em.emit('numberInput', { ...base(em, label, o), value, min, max, step, format: o.format ?? null, placeholder: o.placeholder ?? '' }, id)
  return value
}

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/

/** A calendar day as a UTC midnight `Date`; `2026-02-30` is refused, never rolled into March. */
export function parseDay(v: unknown, strict: boolean): Date {
  if (v instanceof Date && !strict) {
    if (!Number.isNaN(v.getTime())) return new Date(Date.UTC(v.getUTCFullYear(), v.getUTCMonth(), v.getUTCDate()))
  } else if (typeof v === 'string') {
    const m = ISO_DAY.exec(strict ? v : v.slice(0, 10))
    if (m && (strict || v.length === 10 || v[10] === 'T')) {
      const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
      const day = new Date(Date.UTC(y, mo - 1, d))
      if (day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d) return day
      return bad(`${v.slice(0, 10)} is not a day of the calendar`)
    }
  }
  return bad('expected a date (YYYY-MM-DD)')
}
const isoDate = (d: Date): string => d.toISOString().slice(0, 10)

export function dateInput(em: Emitter, label: string, o: DateInputOptions<DateValue | null | readonly [DateValue, DateValue], Date | null | [Date, Date]> = {}): Date | null | [Date, Date] {
  const bound = (name: 'min' | 'max'): Date | null => {
    const v = o[name]
    if (v === undefined) return null
    try {
      return parseDay(v, false)
    } catch {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `dateInput("${label}"): ${name} ${JSON.stringify(v)} is not a date; pass a Date or "YYYY-MM-DD"`)
    }
  }
  const [min, max] = [bound('min'), bound('max')]
  const range = Array.isArray(o.value)
  let def: Date | null | [Date, Date]
  try {
    if (Array.isArray(o.value)) {
      const pair = o.value as readonly unknown[]
      if (pair.length !== 2) return bad('a range is a pair [from, to]')
      def = [parseDay(pair[0], false), parseDay(pair[1], false)]
      if (def[0] > def[1]) return bad(`${isoDate(def[0])} is after ${isoDate(def[1])}`)
    } else def = o.value === undefined ? parseDay(new Date(), false) : o.value === null ? null : parseDay(o.value, false)
  } catch (err) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `dateInput("${label}"): value ${JSON.stringify(o.value)} does not fit (${(err as Error).message.replace(/^invalid widget value: /, '')})`)
  }
  // The default may lie outside min/max (the page chose it); anything else the user picks is inside.
  const allowed = (def === null ? [] : Array.isArray(def) ? def : [def]).map((d) => d.getTime())
  const inBounds = (d: Date): Date => {
    if (allowed.includes(d.getTime())) return d
    if (min && d < min) return bad(`${isoDate(d)} is before the minimum ${isoDate(min)}`)
    if (max && d > max) return bad(`${isoDate(d)} is after the maximum ${isoDate(max)}`)
    return d
  }
  const check = (v: unknown, strict: boolean): Date | null | [Date, Date] => {
    if (range) {
      if (!Array.isArray(v) || v.length !== 2) return bad('expected [from, to]')
      const pair: [Date, Date] = [inBounds(parseDay(v[0], strict)), inBounds(parseDay(v[1], strict))]
      return pair[0] <= pair[1] ? pair : bad(`${isoDate(pair[0])} is after ${isoDate(pair[1])}`)
    }
    if (v === null) return def === null ? null : bad('a date is required')
    return inBounds(parseDay(v, strict))
  }
  const wire = (v: Date | null | [Date, Date]): string | null | [string, string] => (v === null ? null : Array.isArray(v) ? [isoDate(v[0]), isoDate(v[1])] : isoDate(v))
  const { id, value } = register(em, {
    type: 'dateInput', label, key: o.key, identity: [o.value === undefined ? 'today' : wire(def), range], default: def, disabled: o.disabled,
    deserialize: (r) => check(r, true), fromState: (v) => check(v, false), onChange: o.onChange,
  }, wire(def))
  em.emit('dateInput', { ...base(em, label, o), value: wire(value), min: min && isoDate(min), max: max && isoDate(max) }, id)
  return value
}

export function fileUploader(em: Emitter, label: string, o: FileUploaderOptions & { multiple?: boolean } = {}): UploadedFile[] | UploadedFile | null {
  const accept = acceptList(o.accept)
  const maxBytes = o.maxBytes ?? DEFAULT_UPLOAD_MAX_BYTES
  const multiple = o.multiple ?? false
  // Assigned at registration; messages (which call `deserialize`) arrive after the run.
  let id = ''
  const files = fileRules(em, () => (em.ctx.host.widgets.values.get(id) as UploadedFile[] | undefined) ?? [], { accept, maxBytes })
  const many = (list: unknown[]): unknown[] => (multiple || list.length <= 1 ? list : bad('one file only'))
  const deserialize = (r: unknown): UploadedFile[] => {
    if (!Array.isArray(r)) return bad('expected a list of files')
    return many(r).map(files.fromWire)
  }
  const fromState = (v: unknown): UploadedFile[] => many(Array.isArray(v) ? v : v === null ? [] : [v]).map(files.fromState)
  const onChange = o.onChange
  const registered = register<UploadedFile[]>(em, {
    type: 'fileUploader', label, key: o.key, identity: [accept, multiple], default: [], disabled: o.disabled, deserialize, fromState,
    onChange: onChange ? (list) => onChange(list) : undefined,
  }, [])
  const { value } = registered
  id = registered.id
  em.emit('fileUploader', { ...base(em, label, o), value: value.map((f) => ({ name: f.name, type: f.type, size: f.size })), accept, multiple, maxBytes }, id)
  return multiple ? value : (value[0] ?? null)
}

export function downloadButton(em: Emitter, label: string, data: DownloadSource, o: DownloadButtonOptions = {}): boolean {
  const call = `downloadButton("${String(label).slice(0, 40)}")`
  const deferred = typeof data === 'function'
  const mime = o.mime === undefined ? null : checkMime(call, 'mime', o.mime)
  const fileName = o.fileName === undefined ? 'download' : checkFileName(call, o.fileName)
  const url = deferred ? null : em.ctx.host.media.add(downloadBytes(call, data), mime ?? defaultMime(data), fileName)
  const onClick = typeof o.onClick === 'function' ? o.onClick : undefined
  const rerun = o.onClick !== 'ignore'
  const { id, value } = register<boolean>(em, {
    // A click that must not rerun is refused like a click on a disabled button.
    type: 'downloadButton', label, key: o.key, identity: [fileName], default: false, trigger: true, disabled: o.disabled === true || !rerun,
    deserialize: (r) => r === true, onChange: onClick ? () => onClick() : undefined,
  }, false)
  if (deferred && o.disabled !== true) em.ctx.downloads.set(id, { make: data, mime, fileName })
  em.emit('downloadButton', {
    ...base(em, label, o), value: false, url, fileName, mime: mime ?? (deferred ? 'application/octet-stream' : defaultMime(data)), kind: o.type ?? 'secondary', icon: o.icon ?? null, useContainerWidth: o.useContainerWidth ?? false,
    ...(rerun ? {} : { rerun: false }),
  }, id)
  return value
}

const defaultMime = (data: DownloadData): string => (typeof data === 'string' ? 'text/plain' : 'application/octet-stream')

/** The bytes of download data (what a deferred download's function returned, too). */
export function downloadBytes(call: string, data: unknown): Uint8Array {
  if (typeof data === 'string') return new TextEncoder().encode(data)
  if (data instanceof Uint8Array) return data
  if (data instanceof ArrayBuffer) return new Uint8Array(data)
  throw new SvcError('SVC_ERR_UI_BAD_CALL', `${call}: the data must be a string, a Uint8Array (a Buffer) or an ArrayBuffer, got ${data === null ? 'null' : typeof data}`)
}

/** The MIME type a deferred download goes out with: the button's, else by what its function returned. */
export function deferredMime(mime: string | null, data: DownloadData): string {
  return mime ?? defaultMime(data)
}
