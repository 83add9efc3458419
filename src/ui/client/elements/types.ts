import type { UiNode } from '../../wire/protocol.js'

/** What every element component receives: the node and its props, typed by the catalogue. */
export interface ElementProps<P> {
  node: UiNode
  props: P
}
