import { describe, expect, it } from 'vitest'
import { MAX_MESSAGE_DEPTH, MAX_MESSAGE_ENTRIES, parseClientMessage } from '../../../src/ui/wire/protocol.js'

const widget = (value: string): string => `{"v":1,"type":"widget","id":"w","value":${value}}`

describe('parseClientMessage bounds what it accepts beyond the size limit', () => {
  it('reads bytes or text', () => {
    expect(parseClientMessage(new TextEncoder().encode(widget('1')))).toMatchObject({ type: 'widget', value: 1 })
    expect(parseClientMessage(widget('"é"'))).toMatchObject({ value: 'é' })
  })

  it(`refuses nesting deeper than ${MAX_MESSAGE_DEPTH} levels, without recursion`, () => {
    const nest = (n: number): string => '['.repeat(n) + ']'.repeat(n)
    expect(parseClientMessage(widget(nest(MAX_MESSAGE_DEPTH - 1)))).not.toBeNull()
    expect(parseClientMessage(widget(nest(MAX_MESSAGE_DEPTH)))).toBeNull()
    expect(parseClientMessage(widget(nest(100_000)))).toBeNull()
  })

  it(`refuses more than ${MAX_MESSAGE_ENTRIES.toLocaleString('en')} array items and object keys in all`, () => {
    const items = (n: number): string => JSON.stringify(Array.from({ length: n }, () => 0))
    // The message object's own 4 keys count too.
    expect(parseClientMessage(widget(items(MAX_MESSAGE_ENTRIES - 4)))).not.toBeNull()
    expect(parseClientMessage(widget(items(MAX_MESSAGE_ENTRIES - 3)))).toBeNull()
    const keys = JSON.stringify(Object.fromEntries(Array.from({ length: MAX_MESSAGE_ENTRIES }, (_, i) => [`k${i}`, i])))
    expect(parseClientMessage(widget(keys))).toBeNull()
  })

  it('refuses bytes that are not UTF-8', () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('{"v":1,"type":"widget","id":"w","value":"'), 0xc3, 0x28, ...new TextEncoder().encode('"}')])
    expect(parseClientMessage(bytes)).toBeNull()
  })
})
