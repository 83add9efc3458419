import type { UiNode } from '../protocol.js'
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

export function Node({ node }: { node: UiNode }) {
  const Component = elementFor(node.type)
  return (
    <div class={node.stale ? 'svc-el is-stale' : 'svc-el'} data-type={node.type} data-id={node.id}>
      {Component ? (
        <Component node={node} props={node.props} />
      ) : (
        <div class="svc-unknown">
          Unsupported element <code>{node.type}</code>
        </div>
      )}
    </div>
  )
}
