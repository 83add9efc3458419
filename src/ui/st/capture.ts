import { SvcError } from '../../errors.js'
import type { CapturedFile } from '../wire/elements.js'
import type { AudioInputOptions, CameraInputOptions, UploadedFile } from '../st-types.js'
import { fileRules, type FileRules } from './upload-files.js'
import { base, DEFAULT_UPLOAD_MAX_BYTES, register } from './widgets.js'
import type { Emitter } from './run-context.js'
import { bad } from './values.js'

/**
 * `st.audioInput` and `st.cameraInput` (issue #36): the browser records a WAV or takes a JPEG
 * (getUserMedia and MediaRecorder, in a lazily loaded chunk), uploads it like a `fileUploader`
 * file and sends its reference. The server takes it only when it is what the widget drew: within
 * `maxBytes`, of the widget's MIME type, and with the bytes of that format (a WAV of the widget's
 * sample rate, a JPEG).
 */

/** The rates a recording may be made at (Streamlit's list); null keeps the browser's own. */
export const AUDIO_SAMPLE_RATES: readonly number[] = [8000, 11025, 16000, 22050, 24000, 32000, 44100, 48000]
export const DEFAULT_AUDIO_SAMPLE_RATE = 16_000

const ascii = (bytes: Uint8Array, at: number, length: number): string => String.fromCharCode(...bytes.subarray(at, at + length))

/** Why `bytes` is not a PCM WAV file at `rate` Hz (any usual rate when null), or null. */
export function wavProblem(bytes: Uint8Array, rate: number | null): string | null {
  if (bytes.byteLength < 44 || ascii(bytes, 0, 4) !== 'RIFF' || ascii(bytes, 8, 4) !== 'WAVE') return 'not a WAV file'
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  for (let at = 12; at + 8 <= bytes.byteLength; ) {
    const size = view.getUint32(at + 4, true)
    if (ascii(bytes, at, 4) === 'fmt ') {
      if (size < 16 || at + 8 + 16 > bytes.byteLength) return 'a WAV file with a short format chunk'
      if (view.getUint16(at + 8, true) !== 1) return 'not PCM audio'
      const got = view.getUint32(at + 12, true)
      if (rate === null ? got < 3000 || got > 192_000 : got !== rate) return `recorded at ${got} Hz, not ${rate ?? 'a usual rate'}`
      return null
    }
    at += 8 + size + (size % 2)
  }
  return 'a WAV file without a format chunk'
}

export function jpegProblem(bytes: Uint8Array): string | null {
  return bytes.byteLength >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff ? null : 'not a JPEG image'
}

export function sampleRateOf(call: string, rate: number | null | undefined): number | null {
  if (rate === undefined) return DEFAULT_AUDIO_SAMPLE_RATE
  if (rate === null || AUDIO_SAMPLE_RATES.includes(rate)) return rate
  throw new SvcError('SVC_ERR_UI_BAD_CALL', `${call}: sampleRate must be one of ${AUDIO_SAMPLE_RATES.join(', ')} or null (the browser's own), got ${String(rate)}`)
}

export function maxBytesOf(call: string, maxBytes: number | undefined): number {
  const n = maxBytes ?? DEFAULT_UPLOAD_MAX_BYTES
  if (!Number.isInteger(n) || n < 1) throw new SvcError('SVC_ERR_UI_BAD_CALL', `${call}: maxBytes must be a whole number of bytes above 0, got ${String(maxBytes)}`)
  return n
}

export const audioRules = (rate: number | null, maxBytes: number): FileRules => ({ accept: ['audio/wav', '.wav'], maxBytes, inspect: (bytes) => wavProblem(bytes, rate) })
const photoRules = (maxBytes: number): FileRules => ({ accept: ['image/jpeg', '.jpg', '.jpeg'], maxBytes, inspect: (bytes) => jpegProblem(bytes) })

function captured(em: Emitter, type: 'audioInput' | 'cameraInput', label: string, o: AudioInputOptions & CameraInputOptions, rules: FileRules, identity: unknown[], extra: object): UploadedFile | null {
  let id = ''
  const held = (): UploadedFile[] => {
    const v = em.ctx.host.widgets.values.get(id) as UploadedFile | null | undefined
    return v ? [v] : []
  }
  const files = fileRules(em, held, rules)
  // One file or none; the browser sends a list, as a `fileUploader` does.
  const deserialize = (r: unknown): UploadedFile | null => {
    if (!Array.isArray(r) || r.length > 1) return bad('expected [] or [one file]')
    return r.length === 0 ? null : files.fromWire(r[0])
  }
  const fromState = (v: unknown): UploadedFile | null => (v === null || v === undefined ? null : files.fromState(Array.isArray(v) ? v[0] : v))
  const registered = register<UploadedFile | null>(em, { type, label, key: o.key, identity, default: null, disabled: o.disabled, deserialize, fromState, onChange: o.onChange }, [])
  id = registered.id
  const file = registered.value
  const value: CapturedFile | null = file && { name: file.name, type: file.type, size: file.size, url: em.ctx.host.media.add(file.bytes, file.type) }
  em.emit(type, { ...base(em, label, o), value, maxBytes: rules.maxBytes, ...extra } as never, id)
  return file
}

export function audioInput(em: Emitter, label: string, o: AudioInputOptions = {}): UploadedFile | null {
  const call = `audioInput("${String(label).slice(0, 40)}")`
  const rate = sampleRateOf(call, o.sampleRate)
  const maxBytes = maxBytesOf(call, o.maxBytes)
  return captured(em, 'audioInput', label, o, audioRules(rate, maxBytes), [rate, maxBytes], { sampleRate: rate ?? 0 })
}

export function cameraInput(em: Emitter, label: string, o: CameraInputOptions = {}): UploadedFile | null {
  const maxBytes = maxBytesOf(`cameraInput("${String(label).slice(0, 40)}")`, o.maxBytes)
  return captured(em, 'cameraInput', label, o, photoRules(maxBytes), [maxBytes], {})
}
