import { describe, expect, it } from 'vitest'
import { propsChanged } from '../../../src/ui/client/lazy/view.js'

describe('propsChanged (lazy element chunks)', () => {
  it('equal props sent again as new objects are no change; a changed value is, once', () => {
    const changed = propsChanged({ spec: { mark: 'bar' }, height: 300 })
    expect(changed({ spec: { mark: 'bar' }, height: 300 })).toBe(false)
    expect(changed({ spec: { mark: 'line' }, height: 300 })).toBe(true)
    expect(changed({ spec: { mark: 'line' }, height: 300 })).toBe(false)
    // Compared with the last props seen, not the first.
    expect(changed({ spec: { mark: 'bar' }, height: 300 })).toBe(true)
  })
})
