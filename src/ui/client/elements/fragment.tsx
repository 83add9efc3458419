import type { FragmentProps } from '../../wire/elements.js'
import { Nodes } from '../render.js'
import type { ElementProps } from './types.js'

/** `st.fragment()`: its children in a plain stack; the server reruns it on its own. */
export function Fragment({ node, props }: ElementProps<FragmentProps>) {
  return (
    <div class="svc-fragment svc-stack" data-run-every={props.runEvery ?? undefined}>
      <Nodes nodes={node.children ?? []} />
    </div>
  )
}
