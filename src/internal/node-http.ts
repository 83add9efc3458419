import { createRequire } from 'node:module'

/**
 * `node:http` loaded through `require`. On Node 22+ an ESM import of it reads every export, and
 * its lazy `WebSocket`/`CloseEvent`/`MessageEvent` getters then load Node's bundled undici: about
 * 40 ms and 14 MB per process on a 2-core VM (docs/performance.md, "Start-up").
 */
export const http = createRequire(import.meta.url)('node:http') as typeof import('node:http')
