import { describe, expect, it } from 'vitest'
import { z } from '../../../src/internal/zod.js'
import { answerEncoder, compileZodSerializer, sameBothWays } from '../../../src/api/zod-compilers.js'

/**
 * Answers go out through `safeParse` when a schema reads the same both ways (zod's compiled fast
 * path), else through `safeEncode`; either way the bytes must be what encoding gives.
 */
const date = z.codec(z.iso.datetime(), z.date(), { decode: (s) => new Date(s), encode: (d) => d.toISOString() })
const Order = z.object({ id: z.number().int(), tags: z.array(z.string().trim()).optional(), kind: z.union([z.literal('a'), z.enum(['b', 'c'])]), note: z.string().nullable() })

describe('which answers take the fast path', () => {
  it('plain data schemas read the same both ways, also nested and shared', () => {
    for (const schema of [Order, z.array(Order), z.tuple([z.string(), Order], z.number()), z.record(z.string(), Order), z.object({ a: Order, b: Order }).readonly(), z.string().refine((s) => s.length > 0)]) {
      expect(sameBothWays(schema)).toBe(true)
    }
  })

  it('a codec, transform, pipe, default, catch or lazy anywhere inside does not', () => {
    type Node = { children: Node[] }
    const Tree: z.ZodType<Node> = z.lazy(() => z.object({ children: z.array(Tree) }))
    for (const schema of [
      z.object({ at: date }),
      z.array(z.object({ n: z.string().transform((s) => s.length) })),
      z.object({ n: z.string().pipe(z.string()) }),
      z.object({ n: z.number().default(1) }),
      z.object({ n: z.number().catch(0) }),
      Tree,
    ]) {
      expect(sameBothWays(schema)).toBe(false)
    }
  })

  it('gives what safeEncode gives, for both kinds', () => {
    const value = [{ id: 1, tags: [' x '], kind: 'b', note: null, extra: 'dropped' }]
    expect(answerEncoder(z.array(Order))(value)).toEqual(z.safeEncode(z.array(Order), value as never))
    const when = z.object({ at: date })
    const at = new Date(Date.UTC(2026, 0, 1))
    expect(compileZodSerializer({ schema: when })({ at })).toBe('{"at":"2026-01-01T00:00:00.000Z"}')
    expect(compileZodSerializer({ schema: z.array(Order) })(value)).toBe('[{"id":1,"tags":["x"],"kind":"b","note":null}]')
  })
})
