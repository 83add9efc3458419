import { createRequire } from 'node:module'
import type { Pool as UndiciPool } from 'undici'

/**
 * undici's `Pool`, required from its own module. undici's entry loads all of undici (fetch,
 * WebSocket, caches, mocks: 110 modules, about 14 MB and 40 ms per gateway worker on a 2-core VM)
 * where the proxy needs the pool and the client under it (22 modules). undici has no `exports`
 * map, so the path is reachable; test/unit/internal/undici-pool.test.ts checks it is the same
 * class the entry exports, so an undici release that moves it fails the tests, not a user.
 */
export const Pool = createRequire(import.meta.url)('undici/lib/dispatcher/pool.js') as typeof UndiciPool
export type Pool = UndiciPool
