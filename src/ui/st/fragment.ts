import { SvcError } from '../../errors.js'
import { DurationSchema, durationMs } from '../duration.js'
import type { UiElement } from '../wire/elements.js'
import type { FragmentOptions, St } from '../st-types.js'
import type { NestingContainer } from './run-context.js'

/**
 * `st.fragment(fn, { runEvery })`: draws a `fragment` node, runs `fn` with an `st` that writes
 * into it, and registers `fn` with the run so the session can rerun just this part (a widget
 * inside it changed, or its timer fired). The node id (its position path) names the fragment.
 */
export function fragment(c: NestingContainer, fn: (st: St) => void | Promise<void>, o: FragmentOptions = {}): void | Promise<void> {
  const ctx = c.ctx
  ctx.check()
  if (typeof fn !== 'function') throw new SvcError('SVC_ERR_UI_BAD_CALL', 'fragment(fn): pass the function that draws the fragment, e.g. st.fragment((st) => { ... })')
  if (c.formId !== null) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `fragment() cannot be inside form "${c.formId}"; put the form inside the fragment instead`)
  }
  const inside = (id: string): boolean => c.path === id || c.path.startsWith(`${id}.`)
  if ((ctx.scope !== null && inside(ctx.scope)) || [...ctx.fragments.keys()].some(inside)) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', 'fragment() cannot be inside another fragment (an open dialog body is one too); draw the inner part directly, or make it a sibling fragment')
  }
  let runEveryMs: number | null = null
  if (o.runEvery !== undefined && o.runEvery !== null) {
    const parsed = DurationSchema.safeParse(o.runEvery)
    if (!parsed.success) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `fragment(): runEvery ${JSON.stringify(o.runEvery)} is not valid; pass seconds (e.g. 5) or a duration like "5s", "1m"`)
    }
    runEveryMs = durationMs(parsed.data)
  }
  const children: UiElement[] = []
  const node = c.emit('fragment', { runEvery: runEveryMs === null ? null : runEveryMs / 1_000 }, undefined, children)
  ctx.fragments.set(node.id, { fn, runEveryMs })
  return fn(ctx.stFor!({ id: node.id, list: children }))
}
