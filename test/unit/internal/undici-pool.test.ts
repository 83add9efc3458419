import { spawnSync } from 'node:child_process'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { Pool as EntryPool } from 'undici'
import { Pool } from '../../../src/internal/undici-pool.js'
import { REPO } from '../../helpers/svc-process.js'

describe('undici Pool without the undici entry', () => {
  it('is the class undici exports', () => {
    expect(Pool).toBe(EntryPool)
  })

  it('the gateway proxy module loads undici without its entry', () => {
    // A fresh process (the built gateway module, as a worker loads it), then undici's modules in the CJS cache.
    const proxy = pathToFileURL(`${REPO}dist/gateway/http-proxy.js`).href
    const script = `
      await import(${JSON.stringify(proxy)})
      const { createRequire } = await import('node:module')
      const cache = createRequire(import.meta.url).cache
      const loaded = Object.keys(cache).filter((f) => f.includes('/node_modules/undici/'))
      console.log(JSON.stringify({ count: loaded.length, entry: loaded.some((f) => f.endsWith('/undici/index.js')) }))`
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    expect(out.stderr).toBe('')
    const { count, entry } = JSON.parse(out.stdout) as { count: number; entry: boolean }
    expect(entry).toBe(false)
    expect(count).toBeGreaterThan(0)
    expect(count).toBeLessThan(50)
  })
})
