import type { ChatInputProps, ChatMessageProps } from '../../wire/elements.js'
import { Nodes } from '../render.js'
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

/** The input's box: one line of text and its padding. */
const CHAT_INPUT_PX = 52

/**
 * `st.chatInput`, text only or with files and a voice message, is drawn by a lazily loaded chunk
 * with its own stylesheet (lazy/chat-input.ts): pages without a chat carry neither.
 */
export const ChatInput = lazyElement(() => import('../lazy/chat-input.js').then((m) => m.mount), {
  // An input in the page's flow keeps its height while it loads; a docked one takes none.
  minHeight: (props: ChatInputProps) => (props.pinned ? null : CHAT_INPUT_PX),
})
