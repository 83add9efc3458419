import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { ChatInputProps, ChatMessageProps } from '../../wire/elements.js'
import { useRuntime } from '../context.js'
import { Nodes } from '../render.js'
import { domId } from '../widgets/field.js'
import { safeUrl } from '../url.js'
import type { ElementProps } from './types.js'
import { lazyElement } from './lazy.js'

/** Drawn, not emoji: the default avatars show on machines without an emoji font. */
function UserIcon() {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true">
      <circle cx="12" cy="8.5" r="4" fill="currentColor" />
      <path d="M4 20.5c0-4.1 3.6-7 8-7s8 2.9 8 7z" fill="currentColor" />
    </svg>
  )
}

function AssistantIcon() {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true">
      <path d="M12 2.5l2.2 6.3 6.3 2.2-6.3 2.2L12 19.5l-2.2-6.3L3.5 11l6.3-2.2z" fill="currentColor" />
      <path d="M19 15.5l.9 2.1 2.1.9-2.1.9-.9 2.1-.9-2.1-2.1-.9 2.1-.9z" fill="currentColor" />
    </svg>
  )
}

function Avatar({ props }: { props: ChatMessageProps }) {
  if (props.avatarKind === 'image' && props.avatar) {
    return <img class="svc-chat-avatar is-image" src={safeUrl(props.avatar, 'image')} alt="" />
  }
  if (props.avatarKind === 'text' && props.avatar) {
    return (
      <span class="svc-chat-avatar is-text" aria-hidden="true">
        {props.avatar}
      </span>
    )
  }
  const icon = props.role === 'user' ? <UserIcon /> : props.role === 'assistant' ? <AssistantIcon /> : (props.role.trim()[0] ?? '?').toUpperCase()
  return (
    <span class={`svc-chat-avatar is-default role-${props.role === 'user' || props.role === 'assistant' ? props.role : 'other'}`} aria-hidden="true">
      {icon}
    </span>
  )
}

export function ChatMessage({ node, props }: ElementProps<ChatMessageProps>) {
  const known = props.role === 'user' || props.role === 'assistant'
  return (
    <div class={`svc-chat-message role-${known ? props.role : 'other'}`} data-testid="chatMessage" data-role={props.role} aria-label={`${props.role} message`} role="group">
      <Avatar props={props} />
      <div class="svc-chat-content svc-stack">
        <Nodes nodes={node.children ?? []} />
      </div>
    </div>
  )
}

const MAX_INPUT_HEIGHT = 200 // px; the box grows with the text up to this, then scrolls
const NEAR_BOTTOM_PX = 96

/** With the input docked, a reader at the end of the page stays there while an answer grows. */
function useFollowBottom(enabled: boolean): void {
  useEffect(() => {
    const main = document.querySelector('.svc-block-container')
    if (!enabled || !main) return
    const atEnd = () => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - NEAR_BOTTOM_PX
    let following = atEnd()
    const onScroll = () => {
      following = atEnd()
    }
    const grew = new ResizeObserver(() => {
      if (following) window.scrollTo({ top: document.documentElement.scrollHeight })
    })
    window.addEventListener('scroll', onScroll, { passive: true })
    grew.observe(main)
    return () => {
      window.removeEventListener('scroll', onScroll)
      grew.disconnect()
    }
  }, [enabled])
}

/** A chat input that takes files or a recording (issue #36) is drawn by a lazily loaded chunk. */
const ChatInputWithAttachments = lazyElement(() => import('../lazy/chat-input.js').then((m) => m.mount))

export function ChatInput(p: ElementProps<ChatInputProps>) {
  return p.props.attach ? <ChatInputWithAttachments {...p} /> : <TextChatInput {...p} />
}

/** Enter sends, Shift+Enter starts a new line; the text goes as a one-run trigger value. */
function TextChatInput({ node, props }: ElementProps<ChatInputProps>) {
  const rt = useRuntime()
  const [text, setText] = useState('')
  const area = useRef<HTMLTextAreaElement>(null)
  useLayoutEffect(() => {
    const el = area.current
    if (!el) return
    el.style.height = 'auto'
    el.style.height = `${Math.min(el.scrollHeight, MAX_INPUT_HEIGHT)}px`
  }, [text])
  useFollowBottom(props.pinned)
  const empty = text.trim() === ''
  const submit = () => {
    if (empty || props.disabled) return
    rt.sendWidget(node.id, text, true)
    setText('')
    // Docked at the bottom: the answer appears above, so follow it.
    if (props.pinned) window.scrollTo({ top: document.documentElement.scrollHeight })
  }
  return (
    <div class={props.pinned ? 'svc-chat-input is-pinned' : 'svc-chat-input'} data-testid="chatInput">
      <form
        class={props.disabled ? 'svc-chat-input-box is-disabled' : 'svc-chat-input-box'}
        onSubmit={(e) => {
          e.preventDefault()
          submit()
        }}
      >
        <textarea
          ref={area}
          id={domId(node.id)}
          class="svc-chat-textarea"
          rows={1}
          value={text}
          placeholder={props.placeholder}
          aria-label={props.placeholder}
          maxLength={props.maxChars ?? undefined}
          disabled={props.disabled}
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key !== 'Enter' || e.shiftKey || e.isComposing) return
            e.preventDefault()
            submit()
          }}
        />
        <button type="submit" class="svc-chat-send" aria-label="Send" disabled={props.disabled || empty}>
          <svg viewBox="0 0 24 24" aria-hidden="true">
            <path d="M4 12l16-8-6 16-2.5-6.5z" fill="currentColor" />
          </svg>
        </button>
      </form>
    </div>
  )
}
