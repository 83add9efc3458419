import { SvcError } from '../../errors.js'
import type { AudioOptions, ColorPickerOptions, FeedbackOptions, MediaSource, PdfOptions, PillsOptions, SelectSliderOptions, TimeInputOptions, VideoOptions } from '../st-types.js'
import { checkMime } from '../media-headers.js'
import { checkedUrl } from './checked-url.js'
import { bad, displayString, sameValue } from './values.js'
import { base, register } from './widgets.js'
import type { Emitter } from './run-context.js'

/**
 * Media (`audio`, `video`, `pdf`) and the widgets of issue #14.6 (`timeInput`, `colorPicker`,
 * `selectSlider`, `pills`, `segmentedControl`, `feedback`). Every value the browser sends is
 * checked by the widget's `deserialize` before the page sees it.
 */

type MediaKind = 'audio' | 'video' | 'pdf'
const DEFAULT_MIME: Record<MediaKind, string> = { audio: 'audio/wav', video: 'video/mp4', pdf: 'application/pdf' }

function mediaUrl(em: Emitter, kind: MediaKind, data: MediaSource, format: string | undefined): { url: string; mime: string | null } {
  const mime = format === undefined ? null : checkMime(`${kind}()`, 'format', format)
  if (typeof data === 'string') return { url: checkedUrl(`${kind}()`, data, kind).href, mime }
  if (!(data instanceof Uint8Array) && !(data instanceof ArrayBuffer)) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `${kind}(): pass a URL string, a Buffer, a Uint8Array or an ArrayBuffer`)
  }
  const type = mime ?? DEFAULT_MIME[kind]
  return { url: em.ctx.host.media.add(data instanceof Uint8Array ? data : new Uint8Array(data), type), mime: type }
}

function seconds(kind: string, name: string, v: number | undefined): number | null {
  if (v === undefined) return null
  if (!Number.isFinite(v) || v < 0) throw new SvcError('SVC_ERR_UI_BAD_CALL', `${kind}(): ${name} must be a number of seconds >= 0, got ${String(v)}`)
  return v
}

export function audio(em: Emitter, data: MediaSource, o: AudioOptions = {}): void {
  em.emit('audio', { ...mediaUrl(em, 'audio', data, o.format), ...playback('audio', o) })
}

export function video(em: Emitter, data: MediaSource, o: VideoOptions = {}): void {
  em.emit('video', { ...mediaUrl(em, 'video', data, o.format), ...playback('video', o), muted: o.muted ?? false, width: o.width ?? null })
}

function playback(kind: string, o: AudioOptions) {
  return { startTime: seconds(kind, 'startTime', o.startTime) ?? 0, endTime: seconds(kind, 'endTime', o.endTime), loop: o.loop ?? false, autoplay: o.autoplay ?? false }
}

export function pdf(em: Emitter, data: MediaSource, o: PdfOptions = {}): void {
  const height = o.height ?? 500
  if (!Number.isInteger(height) || height < 50 || height > 10_000) throw new SvcError('SVC_ERR_UI_BAD_CALL', `pdf(): height must be a whole number of pixels from 50 to 10000, got ${String(height)}`)
  em.emit('pdf', { url: mediaUrl(em, 'pdf', data, 'application/pdf').url, height })
}

// ---- timeInput ----

const TIME = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/
const pad = (n: number): string => String(n).padStart(2, '0')

/** "H:MM", "HH:MM" or "HH:MM:SS" → "HH:MM" (or "HH:MM:SS" when `withSeconds` and seconds are set). */
export function parseTime(v: unknown, withSeconds: boolean): string {
  if (v instanceof Date && !Number.isNaN(v.getTime())) return formatTime(v.getHours(), v.getMinutes(), v.getSeconds(), withSeconds)
  const m = typeof v === 'string' ? TIME.exec(v.trim().padStart(5, '0')) : null
  if (!m) return bad('expected a time "HH:MM"')
  return formatTime(Number(m[1]), Number(m[2]), Number(m[3] ?? 0), withSeconds)
}

function formatTime(h: number, m: number, s: number, withSeconds: boolean): string {
  return withSeconds ? `${pad(h)}:${pad(m)}:${pad(s)}` : `${pad(h)}:${pad(m)}`
}

export function timeInput(em: Emitter, label: string, o: TimeInputOptions<string | Date | null> = {}): string | null {
  const step = o.step ?? 900
  if (!Number.isInteger(step) || step < 60 || step > 82_800) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `timeInput("${label}"): step must be whole seconds from 60 to 82800, got ${String(step)}`)
  }
  const withSeconds = step % 60 !== 0
  const def = o.value === undefined || o.value === 'now' ? parseTime(new Date(), withSeconds) : o.value === null ? null : parseTime(o.value, withSeconds)
  const deserialize = (r: unknown): string | null => (r === null ? (def === null ? null : bad('a time is required')) : parseTime(r, withSeconds))
  const { id, value } = register(em, {
    type: 'timeInput', label, key: o.key, identity: [o.value === undefined || o.value === 'now' ? 'now' : def, step], default: def, disabled: o.disabled, deserialize, onChange: o.onChange,
  }, def)
  em.emit('timeInput', { ...base(em, label, o), value, step }, id)
  return value
}

// ---- colorPicker ----

export function parseColor(v: unknown): string {
  if (typeof v !== 'string') return bad('expected a colour "#rrggbb"')
  const t = v.trim().toLowerCase()
  if (/^#[0-9a-f]{6}$/.test(t)) return t
  if (/^#[0-9a-f]{3}$/.test(t)) return `#${t[1]}${t[1]}${t[2]}${t[2]}${t[3]}${t[3]}`
  return bad('expected a colour "#rrggbb"')
}

export function colorPicker(em: Emitter, label: string, o: ColorPickerOptions = {}): string {
  let def: string
  try {
    def = parseColor(o.value ?? '#000000')
  } catch {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `colorPicker("${label}"): value ${JSON.stringify(o.value)} is not a hex colour like "#1e90ff"`)
  }
  const { id, value } = register(em, { type: 'colorPicker', label, key: o.key, identity: [def], default: def, disabled: o.disabled, deserialize: parseColor, onChange: o.onChange }, def)
  em.emit('colorPicker', { ...base(em, label, o), value }, id)
  return value
}

// ---- selectSlider ----

function labelsOf<T>(options: readonly T[], format: ((o: T) => string) | undefined): string[] {
  return options.map((opt) => (format ? format(opt) : displayString(opt)))
}

export function selectSlider<T>(em: Emitter, label: string, options: readonly T[], o: SelectSliderOptions<T, T | readonly [T, T]> = {}): T | [T, T] {
  if (options.length === 0) throw new SvcError('SVC_ERR_UI_BAD_CALL', `selectSlider("${label}"): pass at least one option`)
  const labels = labelsOf(options, o.formatFunc)
  const indexOf = (v: unknown): number => {
    const i = options.findIndex((opt) => sameValue(opt, v))
    return i < 0 ? bad('not one of the options') : i
  }
  const range = Array.isArray(o.value) && o.value.length === 2 && !options.some((opt) => sameValue(opt, o.value))
  const toValue = (i: number | [number, number]): T | [T, T] => (Array.isArray(i) ? [options[i[0]]!, options[i[1]]!] : options[i]!)
  const ordered = (a: number, b: number): [number, number] => (a <= b ? [a, b] : [b, a])
  let start: number | [number, number]
  try {
    start = o.value === undefined ? 0 : range ? ordered(indexOf((o.value as readonly T[])[0]), indexOf((o.value as readonly T[])[1])) : indexOf(o.value)
  } catch {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `selectSlider("${label}"): value ${JSON.stringify(o.value)} is not one of the options (or a pair of them)`)
  }
  const isIndex = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0 && n < options.length
  const deserialize = (r: unknown): T | [T, T] => {
    if (range) return Array.isArray(r) && r.length === 2 && isIndex(r[0]) && isIndex(r[1]) && r[0] <= r[1] ? toValue([r[0], r[1]]) : bad('expected [from, to] option indices, from <= to')
    return isIndex(r) ? toValue(r) : bad('expected an option index')
  }
  const fromState = (v: unknown): T | [T, T] => {
    if (range) return Array.isArray(v) && v.length === 2 ? toValue(ordered(indexOf(v[0]), indexOf(v[1]))) : bad('expected a pair of options')
    return toValue(indexOf(v))
  }
  const { id, value } = register<T | [T, T]>(em, {
    type: 'selectSlider', label, key: o.key, identity: [labels, start], default: toValue(start), disabled: o.disabled, deserialize, fromState,
    onChange: o.onChange as ((v: T | [T, T]) => void) | undefined,
  }, start)
  const shown: number | [number, number] = range ? [indexOf((value as [T, T])[0]), indexOf((value as [T, T])[1])] : indexOf(value)
  em.emit('selectSlider', { ...base(em, label, o), options: labels, value: shown }, id)
  return value
}

// ---- pills, segmentedControl ----

export function pills<T>(em: Emitter, type: 'pills' | 'segmentedControl', label: string, options: readonly T[], o: PillsOptions<T, T | null | T[]> = {}): T | null | T[] {
  const mode = o.selectionMode ?? 'single'
  if (mode !== 'single' && mode !== 'multi') throw new SvcError('SVC_ERR_UI_BAD_CALL', `${type}("${label}"): selectionMode must be "single" or "multi", got ${JSON.stringify(mode)}`)
  const labels = labelsOf(options, o.formatFunc)
  const indexOf = (v: unknown): number => {
    const i = options.findIndex((opt) => sameValue(opt, v))
    return i < 0 ? bad('not one of the options') : i
  }
  // The widget holds what the page sees (and `st.sessionState[key]` mirrors): one option or null, or a list.
  const fromIndices = (idx: number[]): T | null | T[] => {
    if (new Set(idx).size !== idx.length) return bad('an option is chosen twice')
    const picked = [...idx].sort((a, b) => a - b).map((i) => options[i]!)
    return mode === 'multi' ? picked : (picked[0] ?? null)
  }
  const fromState = (v: unknown): T | null | T[] => {
    if (mode === 'single') return v === null || v === undefined ? null : options[indexOf(v)]!
    return Array.isArray(v) ? fromIndices(v.map(indexOf)) : bad('expected a list of options')
  }
  const indices = (v: T | null | T[]): number[] => (mode === 'multi' ? (v as T[]).map(indexOf) : v === null ? [] : [indexOf(v)])
  let def: T | null | T[]
  try {
    def = fromState(o.default ?? (mode === 'multi' ? [] : null))
  } catch {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `${type}("${label}"): default ${JSON.stringify(o.default)} is not ${mode === 'multi' ? 'a list of the options' : 'one of the options'}`)
  }
  const deserialize = (r: unknown): T | null | T[] => {
    if (!Array.isArray(r) || (mode === 'single' && r.length > 1)) return bad(mode === 'single' ? 'expected [] or [index]' : 'expected option indices')
    return fromIndices(r.map((i) => (typeof i === 'number' && Number.isInteger(i) && i >= 0 && i < options.length ? i : bad('index out of range'))))
  }
  const { id, value } = register<T | null | T[]>(em, {
    type, label, key: o.key, identity: [labels, mode, indices(def)], default: def, disabled: o.disabled, deserialize, fromState, onChange: o.onChange,
  }, indices(def))
  em.emit(type, { ...base(em, label, o), options: labels, selectionMode: mode, value: indices(value) }, id)
  return value
}

// ---- feedback ----

const FEEDBACK_SIZE = { thumbs: 2, faces: 5, stars: 5 } as const

export function feedback(em: Emitter, options: 'thumbs' | 'faces' | 'stars' = 'thumbs', o: FeedbackOptions = {}): number | null {
  if (!Object.hasOwn(FEEDBACK_SIZE, options)) throw new SvcError('SVC_ERR_UI_BAD_CALL', `feedback(${JSON.stringify(options)}): choose "thumbs", "faces" or "stars"`)
  const size = FEEDBACK_SIZE[options]
  const toIndex = (r: unknown): number | null => (r === null ? null : typeof r === 'number' && Number.isInteger(r) && r >= 0 && r < size ? r : bad(`expected null or an index 0..${size - 1}`))
  let def: number | null
  try {
    def = toIndex(o.default ?? null)
  } catch {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `feedback("${options}"): default must be null or a whole number from 0 to ${size - 1}, got ${JSON.stringify(o.default)}`)
  }
  const { id, value } = register(em, { type: 'feedback', label: '', key: o.key, identity: [options, def], default: def, disabled: o.disabled, deserialize: toIndex, onChange: o.onChange }, def)
  em.emit('feedback', { ...base(em, '', o), options, value }, id)
  return value
}
