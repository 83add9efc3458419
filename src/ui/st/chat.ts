import { SvcError } from '../../errors.js'
import type { ChatInputProps } from '../elements.js'
import { renderMarkdown } from '../markdown.js'
import { sniffMime } from '../media-store.js'
import { checkedUrl } from './checked-url.js'
import type { ChatInputOptions, ChatMessageOptions, StContainer, StreamSource, WriteStreamOptions } from '../st-types.js'
import type { Container } from './container.js'
import { streamText } from './stream.js'

/** `st.chatMessage`, `st.chatInput`, `st.writeStream`. */

/** An avatar that looks like a URL is one (checked); anything else is shown as text (an emoji, initials). */
const IMAGE_URL = /^(https?:|data:image\/|\/)/i
/** LangChain-style role names map to the two built-in roles. */
const ROLE_ALIASES: Readonly<Record<string, string>> = { human: 'user', ai: 'assistant' }

export function chatMessage(c: Container, role: string, o: ChatMessageOptions = {}): StContainer {
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

export function chatInput(c: Container, placeholder = 'Your message', o: ChatInputOptions = {}): string | null {
  const label = String(placeholder)
  if (c.formId !== null) throw new SvcError('SVC_ERR_UI_BAD_CALL', `chatInput("${label}") cannot be used inside form "${c.formId}"; call it on st or a container outside the form`)
  const max = o.maxChars ?? null
  const bad = (what: string): never => {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `invalid chatInput value: ${what}`)
  }
  // Refused whole, as textInput does: cutting could split a character (an emoji is two code units).
  const deserialize = (r: unknown): string =>
    typeof r !== 'string' || r.trim() === '' ? bad('expected a non-empty string') : max !== null && r.length > max ? bad(`longer than ${max} characters`) : r
  const onSubmit = o.onSubmit
  const ctx = c.ctx
  const { id, value } = ctx.widget<string | null>({
    type: 'chatInput', label, key: o.key, identity: [max], formId: null, default: null, disabled: o.disabled, deserialize,
    fromState: (v) => (v === null ? v : typeof v !== 'string' ? bad('expected a string or null') : max !== null && v.length > max ? bad(`longer than ${max} characters`) : v),
    onChange: onSubmit ? (v) => (v === null ? undefined : onSubmit(v)) : undefined,
  })
  // The text belongs to the run its submit caused (kept while that run is replaced and retried);
  // every other run sees null, in the return value and in st.sessionState[key].
  const submitted = ctx.host.widgets.activeTriggers.has(id) ? value : null
  if (submitted === null) {
    ctx.host.widgets.values.set(id, null)
    if (o.key !== undefined) ctx.host.state[o.key] = null
  }
  const props: ChatInputProps = {
    label, key: o.key ?? null, help: null, disabled: o.disabled ?? false, formId: null, labelVisibility: 'collapsed',
    placeholder: label, maxChars: max, pinned: false,
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
export async function writeStream(c: Container, source: StreamSource, o: WriteStreamOptions = {}): Promise<string> {
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
