import { Component } from 'preact'
import type { UiNode } from '../wire/protocol.js'
import { elementFor } from './elements/index.js'

/** Renders nodes in a vertical stack; each element gets a wrapper that carries spacing and the stale state. */
export function Nodes({ nodes }: { nodes: UiNode[] }) {
  return (
    <>
      {nodes.map((node) => (
        <Node key={node.id} node={node} />
      ))}
    </>
  )
}

/**
 * One element. A node a render left unchanged arrives as the very same object (see
 * `applyWire`), so it is skipped here; elements that read context still update through it.
 */
export class Node extends Component<{ node: UiNode }> {
  override shouldComponentUpdate(next: { node: UiNode }): boolean {
    return next.node !== this.props.node
  }

  override render() {
    const node = this.props.node
    const Element = elementFor(node.type)
    return (
      <div class={node.stale ? 'svc-el is-stale' : 'svc-el'} data-type={node.type} data-id={node.id}>
        {Element ? (
          <Element node={node} props={node.props} />
        ) : (
          <div class="svc-unknown">
            Unsupported element <code>{node.type}</code>
          </div>
        )}
      </div>
    )
  }
}
