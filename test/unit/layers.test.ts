import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/**
 * The import picture of svc, written once: each part (a folder, or a single file at the top of
 * src/) and the parts it may import. Listed from the ground up; a part may only name parts above
 * it in this list, so an import that runs back up, or a circle across parts, fails here.
 * src/ui has no part of its own: each of its rooms (folders) and each file at its top is a part,
 * so a circle between two of its rooms fails like one between two processes. The wire contract
 * (src/ui/wire) sits below both the browser bundle (src/ui/client) and the page runtime; the
 * page server process (src/ui/server) runs what the app imports.
 */
const LAYERS: ReadonlyArray<readonly [part: string, mayImport: readonly string[]]> = [
  ['src/errors.ts', []],
  ['src/internal', ['src/errors.ts']],
  // Process machinery every process main and state/ may use: kill-tree, process checks, child env, runProcess.
  ['src/process', ['src/errors.ts', 'src/internal']],
  ['src/settings', ['src/errors.ts', 'src/internal']],
  ['state', ['src/errors.ts', 'src/internal', 'src/process']],
  ['ipc', ['src/errors.ts', 'src/internal', 'src/settings']],
  ['src/tracing', ['src/errors.ts']],
  ['src/api', ['src/errors.ts', 'src/internal']],
  ['src/logging', ['src/api']],
  ['src/secrets', ['src/errors.ts', 'src/logging']],
  ['src/health.ts', ['src/internal']],
  ['src/client', ['src/api', 'src/errors.ts', 'src/internal', 'src/logging']],
  // The browser side of custom components (`svc/component`): no imports at all.
  ['src/component', []],
  ['src/auth', ['src/client', 'src/errors.ts', 'src/internal', 'src/logging', 'src/settings']],
  // The browser↔server contract of pages: element types, the protocol and its version, close codes, the URL policy.
  ['src/ui/wire', ['src/internal']],
  // The browser bundle: it shares only the wire contract with the server.
  ['src/ui/client', ['src/component', 'src/settings', 'src/ui/wire']],
  // Small pieces of the page runtime that import no room of it.
  ['src/ui/duration.ts', ['src/internal']],
  ['src/ui/markdown.ts', []],
  ['src/ui/main-path.ts', ['src/internal']],
  ['src/ui/media-headers.ts', ['src/errors.ts']],
  ['src/ui/media-store.ts', ['src/ui/media-headers.ts']],
  ['src/ui/components.ts', ['src/errors.ts']],
  ['src/ui/page-registry.ts', ['src/errors.ts']],
  ['src/ui/session-ref.ts', []],
  ['src/ui/column-config.ts', ['src/errors.ts', 'src/ui/wire']],
  ['src/ui/cache.ts', ['src/errors.ts', 'src/internal', 'src/ui/duration.ts']],
  ['src/ui/storage', ['src/auth', 'src/errors.ts', 'src/ui/duration.ts', 'src/ui/session-ref.ts']],
  ['src/ui/tasks', ['src/client', 'src/errors.ts', 'src/internal', 'src/logging', 'src/secrets', 'src/ui/session-ref.ts']],
  // The types of `st`, then `st` itself with the run it writes into (RunContext, run signals, widget and upload stores).
  ['src/ui/st-types.ts', ['src/auth', 'src/secrets', 'src/ui/column-config.ts', 'src/ui/components.ts', 'src/ui/storage', 'src/ui/tasks', 'src/ui/wire']],
  ['src/ui/st', ['src/auth', 'src/client', 'src/errors.ts', 'src/internal', 'src/secrets', 'src/ui/column-config.ts', 'src/ui/components.ts', 'src/ui/duration.ts', 'src/ui/markdown.ts', 'src/ui/media-headers.ts', 'src/ui/media-store.ts', 'src/ui/st-types.ts', 'src/ui/tasks', 'src/ui/wire']],
  ['src/ui/inject.ts', ['src/errors.ts', 'src/ui/st-types.ts']],
  ['src/ui/query.ts', ['src/errors.ts', 'src/internal', 'src/ui/st-types.ts']],
  ['src/ui/url-session.ts', ['src/ui/st-types.ts']],
  ['src/ui/page-meta.ts', ['src/client', 'src/errors.ts', 'src/internal', 'src/ui/inject.ts', 'src/ui/st-types.ts']],
  ['src/ui/page-directory.ts', ['src/ui/inject.ts', 'src/ui/page-meta.ts', 'src/ui/page-registry.ts', 'src/ui/wire']],
  ['src/ui/navigation.ts', ['src/auth', 'src/errors.ts', 'src/ui/page-directory.ts', 'src/ui/st-types.ts']],
  // The page session: runs pages, builds `st`, holds a visitor's access; the page server and the test handle drive it.
  ['src/ui/runtime', ['src/auth', 'src/client', 'src/internal', 'src/logging', 'src/secrets', 'src/ui/inject.ts', 'src/ui/media-store.ts', 'src/ui/navigation.ts', 'src/ui/page-directory.ts', 'src/ui/page-meta.ts', 'src/ui/session-ref.ts', 'src/ui/st', 'src/ui/st-types.ts', 'src/ui/storage', 'src/ui/tasks', 'src/ui/wire']],
  // The page side of the app object, and the page-facing names `svc` exports.
  ['src/ui/page-app.ts', ['src/auth', 'src/internal', 'src/settings', 'src/ui/navigation.ts', 'src/ui/page-registry.ts', 'src/ui/storage', 'src/ui/tasks']],
  ['src/ui/pages.ts', ['src/auth', 'src/ui/cache.ts', 'src/ui/column-config.ts', 'src/ui/components.ts', 'src/ui/inject.ts', 'src/ui/main-path.ts', 'src/ui/navigation.ts', 'src/ui/page-meta.ts', 'src/ui/query.ts', 'src/ui/st', 'src/ui/st-types.ts', 'src/ui/storage', 'src/ui/tasks', 'src/ui/url-session.ts', 'src/ui/wire']],
  ['src/shared-state', ['src/auth', 'src/errors.ts', 'src/internal', 'src/settings', 'src/ui/storage', 'src/ui/url-session.ts']],
  // The app's Fastify instance, loaded by src/app.ts only where the API is served.
  ['src/api-instance.ts', ['src/api', 'src/errors.ts', 'src/internal', 'src/logging', 'src/settings']],
  ['src/app.ts', ['src/api', 'src/api-instance.ts', 'src/auth', 'src/errors.ts', 'src/health.ts', 'src/internal', 'src/logging', 'src/secrets', 'src/settings', 'src/shared-state', 'src/ui/inject.ts', 'src/ui/navigation.ts', 'src/ui/page-app.ts', 'src/ui/page-meta.ts', 'src/ui/page-registry.ts', 'src/ui/tasks', 'src/ui/url-session.ts']],
  ['src/target', ['src/app.ts', 'src/errors.ts', 'src/internal']],
  // The probe child: loads the app once per start and reports its settings and pages to whoever forked it.
  ['probe', ['ipc', 'src/errors.ts', 'src/internal', 'src/logging', 'src/process', 'src/settings', 'src/target', 'src/ui/components.ts', 'src/ui/page-app.ts', 'src/ui/page-directory.ts']],
  // The processes (page server, gateway worker, supervisor, CLI); the in-process test client builds a gateway.
  ['src/ui/server', ['ipc', 'probe', 'src/client', 'src/errors.ts', 'src/internal', 'src/logging', 'src/process', 'src/settings', 'src/target', 'src/ui/components.ts', 'src/ui/inject.ts', 'src/ui/markdown.ts', 'src/ui/media-headers.ts', 'src/ui/media-store.ts', 'src/ui/page-app.ts', 'src/ui/page-directory.ts', 'src/ui/runtime', 'src/ui/session-ref.ts', 'src/ui/st-types.ts', 'src/ui/storage', 'src/ui/tasks', 'src/ui/wire', 'state']],
  ['gateway', ['ipc', 'src/app.ts', 'src/errors.ts', 'src/health.ts', 'src/internal', 'src/logging', 'src/process', 'src/settings', 'src/target', 'src/tracing', 'src/ui/server']],
  // The in-process test client and the page test handle (app-test.ts), which drives a PageSession without a socket.
  ['src/testing', ['gateway', 'src/api', 'src/app.ts', 'src/auth', 'src/client', 'src/errors.ts', 'src/internal', 'src/secrets', 'src/settings', 'src/target', 'src/ui/inject.ts', 'src/ui/media-store.ts', 'src/ui/page-app.ts', 'src/ui/page-directory.ts', 'src/ui/runtime', 'src/ui/st-types.ts', 'src/ui/storage', 'src/ui/tasks', 'src/ui/wire']],
  ['src/index.ts', ['src/api', 'src/app.ts', 'src/auth', 'src/client', 'src/errors.ts', 'src/internal', 'src/secrets', 'src/settings', 'src/testing', 'src/ui/pages.ts']],
  ['supervisor', ['ipc', 'probe', 'src/errors.ts', 'src/internal', 'src/logging', 'src/process', 'src/settings', 'src/target', 'state']],
  // The CLI; `svc pages manifest` builds its JSON in src/cli/pages/manifest.ts.
  ['src/cli', ['ipc', 'src/auth', 'src/errors.ts', 'src/internal', 'src/logging', 'src/process', 'src/secrets', 'src/settings', 'src/shared-state', 'src/target', 'src/ui/inject.ts', 'src/ui/page-app.ts', 'src/ui/page-directory.ts', 'state', 'supervisor']],
  // `svc/ui`, the page runtime's public face: it also hands on the test handle (src/testing) and the page manifest (src/cli).
  ['src/ui/index.ts', ['src/auth', 'src/cli', 'src/testing', 'src/ui/cache.ts', 'src/ui/column-config.ts', 'src/ui/components.ts', 'src/ui/inject.ts', 'src/ui/main-path.ts', 'src/ui/markdown.ts', 'src/ui/navigation.ts', 'src/ui/page-meta.ts', 'src/ui/query.ts', 'src/ui/st', 'src/ui/st-types.ts', 'src/ui/storage', 'src/ui/tasks', 'src/ui/url-session.ts', 'src/ui/wire']],
]

/** Top-level folders and files outside src/ that are no part of the runtime's picture. */
const SOURCE_ROOTS = ['src', 'gateway', 'supervisor', 'state', 'ipc', 'probe']

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return /\.tsx?$/.test(name) ? [path] : []
  })
}

/** Relative imports of a file (static, re-exports and dynamic), as paths from the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!)
  return specs.filter((s) => s.startsWith('.')).map((s) => relative(root, resolve(dirname(file), s)).replace(/\.js$/, '.ts'))
}

const parts = LAYERS.map(([part]) => part)

/** The most specific part a path belongs to (src/ui/server before src/ui), or null. */
function partOf(path: string): string | null {
  const hits = parts.filter((p) => path === p || path.startsWith(p + '/') || (p.endsWith('.ts') && path.replace(/\.tsx?$/, '.ts') === p))
  return hits.sort((a, b) => b.length - a.length)[0] ?? null
}

function arrows(): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const dir of SOURCE_ROOTS) {
    for (const file of sources(join(root, dir))) {
      const from = relative(root, file)
      const fromPart = partOf(from)
      for (const target of importsOf(file)) {
        const toPart = partOf(target)
        if (toPart === null || toPart === fromPart) continue
        const key = `${fromPart} -> ${toPart}`
        out.set(key, [...(out.get(key) ?? []), `${from} -> ${target}`])
      }
    }
  }
  return out
}

/**
 * Circles of imports between files of one part (type imports count: a circle of types is a
 * circle of ideas), each as its files sorted and joined with ` + `. The one allowed is the
 * browser bundle's render recursion: an element renders its children through render.tsx, which
 * picks each child's element.
 */
const ALLOWED_CIRCLES: readonly string[] = [
  'src/ui/client/elements/chat.tsx + src/ui/client/elements/fragment.tsx + src/ui/client/elements/index.ts + src/ui/client/elements/layout.tsx + src/ui/client/elements/overlays.tsx + src/ui/client/render.tsx',
  // The brand's guard names the client's type only: code that tests for a client never loads the client's libraries.
  'src/auth/oidc-brand.ts + src/auth/oidc-client.ts',
]

/** Strongly connected groups of two or more files among the imports inside each part (Tarjan). */
function circlesInsideParts(): string[] {
  const files = SOURCE_ROOTS.flatMap((dir) => sources(join(root, dir)).map((f) => relative(root, f)))
  const known = new Set(files)
  const asFile = (target: string): string | undefined => [target, target.replace(/\.ts$/, '.tsx'), `${target}/index.ts`].find((t) => known.has(t))
  const edges = new Map(files.map((f) => [f, importsOf(join(root, f)).map(asFile).filter((t): t is string => t !== undefined && partOf(t) === partOf(f))]))
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const out: string[] = []
  const visit = (f: string): void => {
    index.set(f, index.size)
    low.set(f, index.get(f)!)
    stack.push(f)
    onStack.add(f)
    for (const t of edges.get(f)!) {
      if (!index.has(t)) {
        visit(t)
        low.set(f, Math.min(low.get(f)!, low.get(t)!))
      } else if (onStack.has(t)) low.set(f, Math.min(low.get(f)!, index.get(t)!))
    }
    if (low.get(f) !== index.get(f)) return
    const group: string[] = []
    for (let t = stack.pop()!; ; t = stack.pop()!) {
      onStack.delete(t)
      group.push(t)
      if (t === f) break
    }
    if (group.length > 1) out.push(group.sort().join(' + '))
  }
  for (const f of files) if (!index.has(f)) visit(f)
  return out.sort()
}

describe('layers', () => {
  it('finds the imports it checks (static, re-export, dynamic)', () => {
    expect(importsOf(join(root, 'state/state-file.ts'))).toContain('src/errors.ts')
    expect(importsOf(join(root, 'src/cli/commands/serve.ts'))).toContain('supervisor/start.ts')
    expect(importsOf(join(root, 'src/index.ts'))).toContain('src/testing/index.ts')
  })

  it('every source file belongs to a part of the table', () => {
    const loose = SOURCE_ROOTS.flatMap((dir) => sources(join(root, dir)).map((f) => relative(root, f))).filter((f) => partOf(f) === null)
    expect(loose).toEqual([])
  })

  it('the table runs one way: a part may only import parts listed before it', () => {
    const wrong = LAYERS.flatMap(([part, allowed], i) =>
      allowed.filter((a) => !parts.slice(0, i).includes(a)).map((a) => `${part} -> ${a}`),
    )
    expect(wrong).toEqual([])
  })

  it('no circle of imports between the files of one part, but the ones listed', () => {
    expect(circlesInsideParts()).toEqual([...ALLOWED_CIRCLES].sort())
  })

  it('every import across parts is one the table allows (no arrow runs back up, no circle across folders)', () => {
    const allowed = new Map(LAYERS.map(([part, may]) => [part, new Set(may)]))
    const unexpected = [...arrows()]
      .filter(([key]) => {
        const [from, to] = key.split(' -> ') as [string, string]
        return !allowed.get(from)?.has(to)
      })
      .flatMap(([, files]) => files)
    expect(unexpected).toEqual([])
  })
})
