import type { ServerMessage, UiNode, WireNode, WireServerMessage } from '../wire/protocol.js'

/** Every node of a tree by id (the references of the next render point into it). */
export function indexNodes(trees: readonly UiNode[][]): Map<string, UiNode> {
  const index = new Map<string, UiNode>()
  const walk = (nodes: readonly UiNode[]): void => {
    for (const n of nodes) {
      index.set(n.id, n)
      if (n.children) walk(n.children)
    }
  }
  for (const t of trees) walk(t)
  return index
}

/**
 * Rebuild a render's tree from its wire form against the previous render's nodes. Unchanged
 * nodes come back as the very same objects, so the view can skip them. A reference to an
 * unknown id (it cannot happen on one connection) is dropped rather than drawn wrong.
 */
export function applyWire(previous: ReadonlyMap<string, UiNode>, wire: readonly WireNode[], fresh?: (props: Record<string, unknown>) => void): UiNode[] {
  const out: UiNode[] = []
  for (const w of wire) {
    if ('same' in w) {
      const n = previous.get(w.id)
      if (n) out.push(n)
      continue
    }
    let props: Record<string, unknown>
    if ('sameProps' in w) {
      const before = previous.get(w.id)
      if (!before) continue
      props = before.props
    } else {
      props = w.props
      fresh?.(props)
    }
    out.push({
      id: w.id,
      type: w.type,
      props,
      ...(w.children ? { children: applyWire(previous, w.children, fresh) } : {}),
      ...(w.stale ? { stale: true } : {}),
    })
  }
  return out
}

/** Turns the wire messages of one connection back into complete ones (keeps the last render's tree). */
export class RenderDecoder {
  #previous = new Map<string, UiNode>()

  /** `fresh` is told of every props object the render brings (not carried over from the last one). */
  decode(message: WireServerMessage, fresh?: (props: Record<string, unknown>) => void): ServerMessage {
    if (message.type !== 'render') return message
    const main = applyWire(this.#previous, message.main, fresh)
    const sidebar = applyWire(this.#previous, message.sidebar, fresh)
    this.#previous = indexNodes([main, sidebar])
    return { ...message, main, sidebar }
  }
}
