import { describe, expect, it } from 'vitest'
import { Pool as EntryPool } from 'undici'
import { Pool } from '../../../src/internal/undici-pool.js'

describe('undici Pool required from its own module', () => {
  // An undici release that moves the file fails here (test/integration/lean-processes.test.ts
  // checks that the gateway loads it without the entry).
  it('is the class undici exports', () => {
    expect(Pool).toBe(EntryPool)
  })
})
