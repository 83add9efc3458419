import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/**
 * Every long-lived part of svc (a class with a close or a closeAll, or with the contract's drain
 * and abort) keeps the one close contract of src/internal/lifecycle.ts by extending `Lifecycle`,
 * or, when it extends another class, by holding a `ComposedLifecycle` its close and destroy
 * delegate to. Browser code (src/ui/client, with its stop()) runs in a tab and is not checked.
 */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return /\.tsx?$/.test(name) ? [path] : []
  })
}

interface Part {
  id: string
  extendsLifecycle: boolean
  /** It has a close or a closeAll, or the contract's drain and abort. */
  closes: boolean
}

/** Every top-level class of the runtime's sources. */
function classes(): Part[] {
  const out: Part[] = []
  for (const dir of ['src', 'gateway', 'supervisor', 'state', 'ipc', 'probe']) {
    for (const file of sources(join(root, dir))) {
      const text = readFileSync(file, 'utf8')
      for (const m of text.matchAll(/^(?:export )?(?:abstract )?class (\w+)(.*) \{\n([\s\S]*?)^\}/gm)) {
        const [, name, heritage, body] = m as unknown as [string, string, string, string]
        const method = (n: string): boolean => new RegExp(`^  (?:protected |async |override )*${n}\\(`, 'm').test(body)
        const closes = method('close') || method('closeAll') || (method('drain') && method('abort'))
        const onLifecycle = /\bextends Lifecycle\b/.test(heritage) || /new ComposedLifecycle\(/.test(body)
        out.push({ id: `${relative(root, file)} ${name}`, extendsLifecycle: onLifecycle, closes })
      }
    }
  }
  return out
}

/**
 * Public handles whose close() is a user's one teardown call, not a part's: each says why. What
 * they own is on the contract.
 */
const HANDLES = new Set([
  // Mirrors EventSource.close(): stop reading an event stream; it holds no work of its own.
  'src/client/typed-answers.ts ApiEventStream',
  // A test's afterAll: it destroys the BuiltGateway it made (on the contract); its requests are the test's own awaits.
  'src/testing/test-client.ts SvcTestClient',
])

describe('the close contract (src/internal/lifecycle.ts)', () => {
  it('finds the parts it checks', () => {
    const ids = classes().filter((p) => p.closes).map((p) => p.id)
    expect(ids).toContain('src/shared-state/redis-connection.ts RedisConnection')
    expect(ids).toContain('supervisor/supervisor.ts Supervisor')
    for (const id of HANDLES) expect(ids).toContain(id)
  })

  it('every long-lived part extends or composes Lifecycle', () => {
    const off = classes()
      .filter((p) => p.closes && !p.extendsLifecycle && !HANDLES.has(p.id) && p.id !== 'src/internal/lifecycle.ts Lifecycle')
      .map((p) => p.id)
    expect(off).toEqual([])
  })

  it("architecture.md's table of parts names exactly the classes on it", () => {
    const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8')
    const table = doc.split('| part | `close()` | `destroy()` |\n')[1]!.split('\n\n')[0]!
    // The first cell's class names, before what the parenthesis says of them.
    const named = table
      .split('\n')
      .slice(1)
      .flatMap((row) => [...row.split('|')[1]!.split('(')[0]!.matchAll(/`([A-Z]\w+)`/g)].map((m) => m[1]!))
    const on = classes()
      .filter((p) => p.extendsLifecycle && p.id !== 'src/internal/lifecycle.ts ComposedLifecycle')
      .map((p) => p.id.split(' ')[1]!)
    expect(named.sort()).toEqual(on.sort())
  })

  it('the long-lived parts, each on it', () => {
    const on = classes().filter((p) => p.extendsLifecycle).map((p) => p.id)
    expect(on).toEqual(
      expect.arrayContaining([
        'src/shared-state/redis-connection.ts RedisConnection',
        'src/shared-state/shared-state.ts SharedState',
        'gateway/http-proxy.ts HttpProxy',
        'gateway/ws-proxy.ts WsProxy',
        'gateway/server.ts GatewayServer',
        'gateway/build.ts BuiltGateway',
        'gateway/actor.ts GatewayActor',
        'supervisor/supervisor.ts Supervisor',
        'supervisor/sidecar.ts Sidecar',
        'supervisor/worker.ts WorkerHandle',
        'supervisor/connection-dispatch.ts ConnectionDispatcher',
        'src/ui/server/ui-server.ts UiServer',
        'src/ui/server/page-thread-pool.ts PageThreadPool',
        'src/ui/server/local-sessions.ts LocalSessions',
        'src/ui/server/session-manager.ts SessionManager',
        'src/ui/server/thread-snapshots.ts LocalSnapshotStore',
        'src/ui/server/task-thread-pool.ts TaskThreadPool',
        'src/ui/runtime/page-session.ts PageSession',
        'src/ui/tasks/task-manager.ts TaskManager',
        'src/ui/tasks/inline-executor.ts InlineTaskExecutor',
        'supervisor/type-check/type-checker.ts DevTypeCheck',
        'supervisor/control-server.ts ControlServer',
        'supervisor/recycler.ts Recycler',
        'supervisor/dev-loop.ts DevLoop',
        'supervisor/log-file.ts LogFile',
      ]),
    )
  })
})
