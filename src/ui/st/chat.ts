import { SvcError } from '../../errors.js'
import type { ChatAttachments, ChatInputProps } from '../wire/elements.js'
import { renderMarkdown } from '../markdown.js'
import { sniffMime } from '../media-store.js'
import { checkedUrl } from './checked-url.js'
import type { ChatInputOptions, ChatInputValue, ChatMessageOptions, StContainer, StreamSource, UploadedFile, WriteStreamOptions } from '../st-types.js'
import { audioRules, maxBytesOf, sampleRateOf } from './capture.js'
import { acceptList, fileRules } from './upload-files.js'
import type { NestingContainer } from './run-context.js'
import { streamText } from './stream.js'

/** `st.chatMessage`, `st.chatInput`, `st.writeStream`. */

/** An avatar that looks like a URL is one (checked); anything else is shown as text (an emoji, initials). */
const IMAGE_URL = /^(https?:|data:image\/|\/)/i
/** LangChain-style role names map to the two built-in roles. */
const ROLE_ALIASES: Readonly<Record<string, string>> = { human: 'user', ai: 'assistant' }

export function chatMessage(c: NestingContainer, role: string, o: ChatMessageOptions = {}): StContainer {
  const name = String(role)
  const a = o.avatar
  let avatar: string | null = null
  let avatarKind: 'image' | 'text' | 'default' = 'default'
  if (a instanceof Uint8Array || a instanceof ArrayBuffer) {
    const bytes = a instanceof Uint8Array ? a : new Uint8Array(a)
    avatar = c.ctx.host.media.add(bytes, sniffMime(bytes))
    avatarKind = 'image'
  } else if (typeof a === 'string' && a.trim() !== '') {
    avatar = a.trim()
    avatarKind = IMAGE_URL.test(avatar) ? 'image' : 'text'
    if (avatarKind === 'image') avatar = checkedUrl(`chatMessage("${name.slice(0, 40)}")`, avatar, 'image').href
  }
  return c.nest('chatMessage', { role: ROLE_ALIASES[name] ?? name, avatar, avatarKind }).body
}

const FILE_MODES = { single: 'single', multiple: 'multiple', directory: 'directory' } as const

/** What the chat input takes beside text (null: text only) and the rules its files go through. */
function attachments(label: string, o: ChatInputOptions<unknown>): ChatAttachments | null {
  const call = `chatInput("${label.slice(0, 40)}")`
  const files = o.acceptFile === undefined || o.acceptFile === false ? null : o.acceptFile === true ? 'single' : FILE_MODES[o.acceptFile]
  if (files === undefined) throw new SvcError('SVC_ERR_UI_BAD_CALL', `${call}: acceptFile must be true, false, 'multiple' or 'directory', got ${JSON.stringify(o.acceptFile)}`)
  const audio = o.acceptAudio === true
  if (files === null && !audio) return null
  return { files, accept: acceptList(o.fileType), maxBytes: maxBytesOf(call, o.maxBytes), audioSampleRate: audio ? (sampleRateOf(call, o.audioSampleRate) ?? 0) : null }
}

function chatValue(text: string, files: readonly UploadedFile[], audio: UploadedFile | null): ChatInputValue {
  return Object.freeze({ text, files: Object.freeze([...files]), audio })
}

export function chatInput(c: NestingContainer, placeholder = 'Your message', o: ChatInputOptions<unknown> = {}): string | ChatInputValue | null {
  const label = String(placeholder)
  if (c.formId !== null) throw new SvcError('SVC_ERR_UI_BAD_CALL', `chatInput("${label}") cannot be used inside form "${c.formId}"; call it on st or a container outside the form`)
  const max = o.maxChars ?? null
  const bad = (what: string): never => {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `invalid chatInput value: ${what}`)
  }
  const attach = attachments(label, o)
  const ctx = c.ctx
  let id = ''
  const held = (): UploadedFile[] => {
    const v = ctx.host.widgets.values.get(id) as ChatInputValue | null | undefined
    return v ? [...v.files, ...(v.audio ? [v.audio] : [])] : []
  }
  const fileReader = attach && fileRules(c, held, { accept: attach.accept, maxBytes: attach.maxBytes })
  const audioReader = attach?.audioSampleRate != null ? fileRules(c, held, audioRules(attach.audioSampleRate === 0 ? null : attach.audioSampleRate, attach.maxBytes)) : null
  // Refused whole, as textInput does: cutting could split a character (an emoji is two code units).
  const text = (r: unknown, empty: boolean): string =>
    typeof r !== 'string' || (!empty && r.trim() === '') ? bad('expected a non-empty string') : max !== null && r.length > max ? bad(`longer than ${max} characters`) : r
  /** A submit with attachments: its text may be empty when it carries a file or a recording. */
  const read = (r: unknown, file: (f: unknown) => UploadedFile, audio: ((f: unknown) => UploadedFile) | null): ChatInputValue => {
    const p = r as { text?: unknown; files?: unknown; audio?: unknown } | null
    const list = p?.files ?? []
    if (!Array.isArray(list)) return bad('files must be a list')
    if (attach!.files === null ? list.length > 0 : attach!.files === 'single' && list.length > 1) return bad(attach!.files === null ? 'this chat input takes no files' : 'one file only')
    const recording = p?.audio ?? null
    if (recording !== null && audio === null) return bad('this chat input takes no recording')
    const value = chatValue(text(p?.text ?? '', true), list.map(file), recording === null ? null : audio!(recording))
    return value.text.trim() === '' && value.files.length === 0 && value.audio === null ? bad('an empty submit') : value
  }
  const deserialize = (r: unknown): string | ChatInputValue => (attach === null ? text(r, false) : read(r, fileReader!.fromWire, audioReader?.fromWire ?? null))
  const fromState = (v: unknown): string | ChatInputValue | null => {
    if (v === null) return null
    if (attach === null) return typeof v === 'string' ? text(v, true) : bad('expected a string or null')
    return read(typeof v === 'string' ? { text: v } : v, fileReader!.fromState, audioReader?.fromState ?? null)
  }
  const onSubmit = o.onSubmit
  const registered = ctx.widget<string | ChatInputValue | null>({
    type: 'chatInput', label, key: o.key, identity: [max, attach], formId: null, default: null, disabled: o.disabled, deserialize, fromState,
    onChange: onSubmit ? (v) => (v === null ? undefined : onSubmit(v)) : undefined,
  })
  id = registered.id
  // The text belongs to the run its submit caused (kept while that run is replaced and retried);
  // every other run sees null, in the return value and in st.sessionState[key].
  const submitted = ctx.host.widgets.activeTriggers.has(id) ? registered.value : null
  if (submitted === null) {
    ctx.host.widgets.values.set(id, null)
    if (o.key !== undefined) ctx.host.state[o.key] = null
  }
  const props: ChatInputProps = {
    label, key: o.key ?? null, help: null, disabled: o.disabled ?? false, formId: null, labelVisibility: 'collapsed',
    placeholder: label, maxChars: max, pinned: false, ...(attach ? { attach } : {}),
  }
  const node = c.emit('chatInput', props, id)
  props.pinned = ctx.main.includes(node)
  return submitted
}

/**
 * Writes the stream into one Markdown element as it arrives. The HTML is rendered when the tree
 * is sent (a getter read by the partial render's JSON), so a fast stream costs one Markdown pass
 * per flush instead of one per chunk.
 */
export async function writeStream(c: NestingContainer, source: StreamSource, o: WriteStreamOptions = {}): Promise<string> {
  const pieces = streamText(source, o.format ?? 'auto')
  let text = ''
  let cached = { text: '', html: '' }
  const props = {} as { html: string }
  Object.defineProperty(props, 'html', {
    enumerable: true,
    configurable: true,
    get: () => {
      if (cached.text !== text) cached = { text, html: renderMarkdown(text) }
      return cached.html
    },
  })
  c.emit('markdown', props)
  for await (const piece of pieces) {
    c.ctx.check()
    if (piece === '') continue
    text += piece
    c.ctx.touch()
  }
  c.ctx.check()
  Object.defineProperty(props, 'html', { value: renderMarkdown(text), enumerable: true, writable: true })
  c.ctx.touch()
  return text
}
