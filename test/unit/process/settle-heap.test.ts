import { runInNewContext } from 'node:vm'
import { expect, it } from 'vitest'
import { QuietSettle, settleHeap } from '../../../src/process/settle-heap.js'

it('settleHeap runs a full collection and leaves no gc for the app: not on the global, not in a later vm context', () => {
  const globalBefore = typeof (globalThis as { gc?: unknown }).gc
  settleHeap()
  settleHeap()
  expect(typeof (globalThis as { gc?: unknown }).gc).toBe(globalBefore)
  expect(runInNewContext('typeof gc')).toBe('undefined')
})

it('QuietSettle settles once per quiet spell, quietMs after the last work, never while work keeps coming', () => {
  let now = 0
  let settled = 0
  const quiet = new QuietSettle(5_000, { now: () => now, settle: () => settled++ })
  expect(quiet.check()).toBe(false)
  quiet.worked()
  now = 4_999
  expect(quiet.check()).toBe(false)
  quiet.worked()
  now = 9_998
  expect(quiet.check()).toBe(false)
  now = 9_999
  expect(quiet.check()).toBe(true)
  now = 60_000
  expect(quiet.check()).toBe(false)
  expect(settled).toBe(1)
  quiet.worked()
  now = 65_000
  expect(quiet.check()).toBe(true)
  expect(settled).toBe(2)
})
