import { expectTypeOf } from 'vitest'
import type { St, StContainer } from '../../src/ui/st-types.js'

/**
 * Checked by `npm run typecheck` (tsconfig includes test/, with noUncheckedIndexedAccess): columns
 * and tabs give tuples for literal counts and lists, arrays otherwise.
 */
declare const st: St
declare const n: number
declare const weights: number[]
declare const labels: string[]

expectTypeOf(st.columns(2)).toEqualTypeOf<[StContainer, StContainer]>()
expectTypeOf(st.columns(4)).toEqualTypeOf<[StContainer, StContainer, StContainer, StContainer]>()
expectTypeOf(st.columns([2, 1])).toEqualTypeOf<[StContainer, StContainer]>()
expectTypeOf(st.columns([1, 1, 2], { gap: 'large' })).toEqualTypeOf<[StContainer, StContainer, StContainer]>()
expectTypeOf(st.tabs(['Chart', 'Table'])).toEqualTypeOf<[StContainer, StContainer]>()
expectTypeOf(st.sidebar.columns(3)).toEqualTypeOf<[StContainer, StContainer, StContainer]>()

// Counts and lists only known at run time: arrays, whose items may be missing.
expectTypeOf(st.columns(n)).toEqualTypeOf<StContainer[]>()
expectTypeOf(st.columns(weights)).toEqualTypeOf<StContainer[]>()
expectTypeOf(st.tabs(labels)).toEqualTypeOf<StContainer[]>()
expectTypeOf(st.columns(40)).toEqualTypeOf<StContainer[]>()

// The docs' own examples need no `!`.
const [left, right] = st.columns(2)
left.metric('A', 1)
right.metric('B', 2)
const [chart, table] = st.tabs(['Chart', 'Table'])
chart.text('chart')
table.text('table')
