import { readFileSync, statSync } from 'node:fs'
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { compileFunction } from 'node:vm'
import { transformSync, type Loader } from 'esbuild'
import type { MessagePort } from 'node:worker_threads'
import { stopTransformService } from './transform-service.js'

/**
 * Module hooks that let an app written with `import`/`export` load in any project: a bare
 * folder, a `"type": "commonjs"` package (what `npm init -y` writes) or a `"type": "module"` one.
 *
 * Node (and tsx) pick a file's format from its extension and the nearest package.json, so
 * `app.ts` in a CommonJS package goes to the CommonJS loader, which then meets `import` and fails
 * (`ERR_REQUIRE_CYCLE_MODULE`, "Cannot use import statement outside a module"). This resolve hook
 * runs first (registered after tsx), lets tsx resolve the specifier (`./lib` → `./lib.ts`), and
 * marks a project file (outside node_modules) that would load as CommonJS as ESM when its code,
 * types stripped, is not a valid CommonJS module body (it has import/export, import.meta or a
 * top-level await). A real CommonJS file (`require`, `module.exports`) stays CommonJS. Deciding
 * in resolve (not load) keeps tsx's own load hooks, namespaced ones included, seeing an ordinary
 * ESM file.
 */

interface ResolveResult {
  url: string
  format?: string | null | undefined
  shortCircuit?: boolean
}
type NextResolve<R> = (specifier: string, context?: unknown) => R

const CJS_FORMATS = new Set([undefined, null, 'commonjs', 'commonjs-typescript'])
const PROJECT_FILE = /\.(?:[cm]?tsx?|jsx?)$/
const CJS_WRAPPER_PARAMS = ['exports', 'require', 'module', '__filename', '__dirname']
const verdicts = new Map<string, { mtimeMs: number; esm: boolean }>()

/** A file of the user's project that the chain would load as CommonJS (`.cjs` is always CommonJS). */
export function isCommonJsCandidate(url: string, format: string | null | undefined): boolean {
  if (!url.startsWith('file:') || !CJS_FORMATS.has(format ?? undefined)) return false
  const path = decodeURIComponent(new URL(url).pathname)
  return PROJECT_FILE.test(path) && !path.includes('/node_modules/')
}

/** True when the file's code (types stripped) is not a valid CommonJS module body. */
export function needsEsm(path: string): boolean {
  let mtimeMs: number
  try {
    mtimeMs = statSync(path).mtimeMs
  } catch {
    return false
  }
  const known = verdicts.get(path)
  if (known?.mtimeMs === mtimeMs) return known.esm
  let esm: boolean
  try {
    const ext = extname(path).slice(1)
    const loader: Loader = ext.endsWith('tsx') ? 'tsx' : ext.endsWith('ts') ? 'ts' : ext.endsWith('jsx') ? 'jsx' : 'js'
    const { code } = transformSync(readFileSync(path, 'utf8'), { loader, sourcefile: path })
    compileFunction(code, CJS_WRAPPER_PARAMS)
    esm = false
  } catch {
    // Not valid CommonJS (or not valid at all): as ESM, a real syntax error is reported clearly.
    esm = true
  }
  verdicts.set(path, { mtimeMs, esm })
  return esm
}

function decide<R extends ResolveResult>(resolved: R): R {
  if (!isCommonJsCandidate(resolved.url, resolved.format)) return resolved
  return needsEsm(fileURLToPath(resolved.url.replace(/[?#].*$/, ''))) ? { ...resolved, format: 'module' } : resolved
}

/** `module.register()` initialize (Node 20): the loading thread asks over `port` to stop esbuild's service here (load-target.ts). */
export function initialize(data: { port: MessagePort } | undefined): void {
  const port = data?.port
  if (port === undefined) return
  port.on('message', () => {
    stopTransformService()
    port.postMessage('stopped')
  })
  port.unref()
}

/** `module.register()` hook (Node 20: tsx's hooks run off-thread too). */
export async function resolve(specifier: string, context: unknown, nextResolve: NextResolve<Promise<ResolveResult>>): Promise<ResolveResult> {
  return decide(await nextResolve(specifier, context))
}

/** `module.registerHooks()` hook (Node 22.15+/24, where tsx registers in-thread). */
export function resolveSync(specifier: string, context: unknown, nextResolve: NextResolve<ResolveResult>): ResolveResult {
  return decide(nextResolve(specifier, context))
}
