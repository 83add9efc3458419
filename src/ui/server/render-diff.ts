import { createHash } from 'node:crypto'
import type { ServerMessage, UiNode, WireNode, WireServerMessage } from '../protocol.js'

interface SentNode {
  /** Digest of type + props + stale. */
  own: string
  /** Digest of the node with its whole subtree. */
  tree: string
}

function digest(text: string): string {
  return createHash('sha1').update(text).digest('base64')
}

/**
 * Encodes the renders of one connection: remembers digests of the nodes it sent last and
 * replaces what did not change by references (`WireNode`), so a rerun that changed one slider
 * costs that slider, not the 10,000-row table next to it. One encoder per socket: a new
 * connection starts from nothing and gets a complete render.
 */
export class RenderEncoder {
  /** id → digests of the last render; null marks an id that occurred twice (never referenced). */
  #sent = new Map<string, SentNode | null>()

  encode(message: ServerMessage): WireServerMessage {
    if (message.type !== 'render') return message
    const next = new Map<string, SentNode | null>()
    const main = this.#nodes(message.main, next)
    const sidebar = this.#nodes(message.sidebar, next)
    this.#sent = next
    return { ...message, main, sidebar }
  }

  #nodes(nodes: UiNode[], next: Map<string, SentNode | null>): WireNode[] {
    return nodes.map((n) => this.#node(n, next).wire)
  }

  #node(node: UiNode, next: Map<string, SentNode | null>): { wire: WireNode; tree: string } {
    const own = digest(`${node.type}\u0000${node.stale === true ? 1 : 0}\u0000${JSON.stringify(node.props)}`)
    const children = node.children?.map((c) => this.#node(c, next))
    const tree = children ? digest(own + children.map((c) => c.tree).join()) : own
    next.set(node.id, next.has(node.id) ? null : { own, tree })
    const before = this.#sent.get(node.id)
    const stale = node.stale === true ? { stale: true } : {}
    const kids = children ? { children: children.map((c) => c.wire) } : {}
    if (before?.tree === tree) return { wire: { id: node.id, same: true }, tree }
    if (before?.own === own) return { wire: { id: node.id, type: node.type, sameProps: true, ...kids, ...stale }, tree }
    return { wire: { id: node.id, type: node.type, props: node.props, ...kids, ...stale }, tree }
  }
}
