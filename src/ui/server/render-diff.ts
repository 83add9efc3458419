import { hash } from 'node:crypto'
import type { ServerMessage, UiNode } from '../wire/protocol.js'

interface SentNode {
  /** Digest of type + props + stale. */
  own: string
  /** Digest of the node with its whole subtree (the same string as `own` for a leaf). */
  tree: string
}

/** One-shot sha1 (no Hash object per node); a collision would show an old node, so no weak hash. */
function digest(text: string): string {
  return hash('sha1', text, 'base64')
}

/**
 * Encodes the messages of one connection to JSON text. Renders travel as `WireNode`s: the
 * encoder remembers digests of the nodes it sent last and replaces what did not change by
 * references, so a rerun that moved one slider costs that slider, not the 10,000-row table next
 * to it. Each node's props are serialized once, for the digest and for the frame. One encoder
 * per socket: a new connection starts from nothing and gets a complete render.
 */
export class RenderEncoder {
  /** id → digests of the last render; null marks an id that occurred twice (never referenced). */
  #sent = new Map<string, SentNode | null>()

  encode(message: ServerMessage): string {
    if (message.type !== 'render') return JSON.stringify(message)
    const next = new Map<string, SentNode | null>()
    const main = this.#nodes(message.main, next)
    const sidebar = this.#nodes(message.sidebar, next)
    this.#sent = next
    const head = JSON.stringify({ ...message, main: undefined, sidebar: undefined })
    return `${head.slice(0, -1)},"main":${main},"sidebar":${sidebar}}`
  }

  #nodes(nodes: readonly UiNode[], next: Map<string, SentNode | null>): string {
    return `[${nodes.map((n) => this.#node(n, next).json).join(',')}]`
  }

  #node(node: UiNode, next: Map<string, SentNode | null>): { json: string; tree: string } {
    const props = JSON.stringify(node.props)
    const stale = node.stale === true
    const own = digest(`${node.type}\u0000${stale ? 1 : 0}\u0000${props}`)
    const children = node.children?.map((c) => this.#node(c, next))
    const tree = children ? digest(own + children.map((c) => c.tree).join()) : own
    next.set(node.id, next.has(node.id) ? null : { own, tree })
    const before = this.#sent.get(node.id)
    const id = JSON.stringify(node.id)
    if (before?.tree === tree) return { json: `{"id":${id},"same":true}`, tree }
    const body = before?.own === own ? '"sameProps":true' : `"props":${props}`
    const kids = children ? `,"children":[${children.map((c) => c.json).join(',')}]` : ''
    return { json: `{"id":${id},"type":${JSON.stringify(node.type)},${body}${kids}${stale ? ',"stale":true' : ''}}`, tree }
  }
}
