import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisConnection } from '../../src/shared-state/redis-connection.js'
import { sessionRef } from '../../src/ui/session-ref.js'
import type { ServerMessage } from '../../src/ui/wire/protocol.js'
import { hasRedis, RedisServer } from '../helpers/redis-server.js'
import { REPO, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'
import { PageClient, textOf } from '../helpers/ui-sidecar.js'

/**
 * Issue #27.4 on real trees: session ids are the server's. Two replicas (A and B, bundled page
 * server each) share a real redis-server, as in production behind a load balancer. A URL-session
 * id (`?svc_sid=`) or a page-session id that svc did not issue to this session is replaced, never
 * adopted, on either replica; and no id reaches a log line.
 */
const TARGET = `${REPO}test/fixtures/app-session-ids.ts:app`
type Render = Extract<ServerMessage, { type: 'render' }>

describe.skipIf(!hasRedis)('session ids are the server’s (two replicas, Redis)', () => {
  let redis: RedisServer
  let inspect: RedisConnection
  const replicas: Record<'A' | 'B', SvcTree> = {} as Record<'A' | 'B', SvcTree>
  const clients: PageClient[] = []
  /** Every id a test saw, checked against every log line at the end. */
  const seenIds = new Set<string>()

  beforeAll(async () => {
    redis = await RedisServer.start()
    inspect = new RedisConnection({ url: redis.url, keyPrefix: 'svc:', timeoutMs: 1000, logger: pino({ level: 'silent' }) })
    const env = (name: string) => ({ SVC_UI_COMMAND: undefined, SVC_REDIS_URL: redis.url, REPLICA: name, SVC_FORCE_URL_SESSION_IN_TESTS: '1', SVC_LOG_FORMAT: 'json', SVC_LOG_LEVEL: 'debug', SVC_ENABLE_GATEWAY_ACCESS_LOG: '1' })
    const [a, b] = await Promise.all([startSvc({ target: TARGET, env: env('A') }), startSvc({ target: TARGET, env: env('B') })])
    replicas.A = a!
    replicas.B = b!
  }, 60_000)

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()))
    await stopAllTrees()
    await inspect?.destroy()
    await redis?.stop()
  }, 60_000)

  async function visit(replica: 'A' | 'B', path: string, query = '', sessionId: string | null = null) {
    const client = await new PageClient(`${replicas[replica].url.replace('http:', 'ws:')}/_stcore/stream`).open()
    clients.push(client)
    client.send({ type: 'hello', sessionId, path, query })
    const session = await client.next('session', 10_000)
    seenIds.add(session.sessionId)
    let render = await client.render(10_000)
    return {
      session,
      get render(): Render {
        return render
      },
      /** Type into the note field and wait for the rerun. */
      async note(text: string): Promise<void> {
        const input = render.main.find((n) => n.type === 'textInput')!
        client.send({ type: 'widget', id: input.id, value: text })
        render = await client.render(10_000)
      },
    }
  }

  const sid = (render: Render): string => new URLSearchParams(render.query).get('svc_sid') ?? ''
  const stored = async (id: string): Promise<string | null> => inspect.get(`url-session:${id}`)

  it('a URL-session id svc never issued is replaced on the replica that sees it; nothing is stored under it', async () => {
    const chosen = 'Attacker0Chosen0Id0'.padEnd(43, 'x')
    seenIds.add(chosen)
    const victim = await visit('B', '/notes', `svc_sid=${chosen}`)
    const id = sid(victim.render)
    seenIds.add(id)
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(id).not.toBe(chosen)
    await victim.note('victim secret')
    expect(textOf(victim.render)).toContain('note: victim secret')
    expect(sid(victim.render)).toBe(id)
    expect(await stored(chosen)).toBeNull()
    expect(await stored(id)).toContain('victim secret')
  })

  it('a link carrying an id issued to someone else (on the other replica) never collects the victim’s state', async () => {
    const attacker = await visit('A', '/notes')
    await attacker.note('planted by the attacker')
    const planted = sid(attacker.render)
    seenIds.add(planted)
    expect(await stored(planted)).toContain('planted by the attacker')

    const victim = await visit('B', '/notes', `svc_sid=${planted}`)
    const id = sid(victim.render)
    seenIds.add(id)
    expect(id).not.toBe(planted)
    // The state behind an id svc issued travels to the fresh id (a reload, a bookmark)…
    expect(textOf(victim.render)).toContain('note: planted by the attacker')
    await victim.note('victim secret')
    // …but what the victim does next is stored under the victim's id only.
    expect(await stored(planted)).not.toContain('victim secret')
    expect(await stored(id)).toContain('victim secret')
  })

  it('the same browser keeps its own id across reruns on its replica', async () => {
    const tab = await visit('A', '/notes')
    const id = sid(tab.render)
    seenIds.add(id)
    await tab.note('one')
    await tab.note('two')
    expect(sid(tab.render)).toBe(id)
    expect(await stored(id)).toContain('two')
  })

  it('a page-session id svc never issued gets a fresh session, on either replica; an issued one resumes elsewhere', async () => {
    const chosen = 'ChosenPageSessionId0000000000000'
    seenIds.add(chosen)
    for (const replica of ['A', 'B'] as const) {
      const tab = await visit(replica, '/count', '', chosen)
      expect(tab.session.restored).toBe(false)
      expect(tab.session.sessionId).not.toBe(chosen)
      expect(tab.session.sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/)
    }
    expect(await inspect.get(`page-session:${chosen}`)).toBeNull()

    const first = await visit('A', '/count')
    const issued = first.session.sessionId
    const button = first.render.main.find((n) => n.type === 'button')!
    clients.at(-1)!.send({ type: 'widget', id: button.id, value: true, trigger: true })
    expect(textOf(await clients.at(-1)!.render(10_000))).toContain('count: 1')
    await clients.at(-1)!.close()
    const elsewhere = await visit('B', '/count', '', issued)
    expect(elsewhere.session).toMatchObject({ sessionId: issued, restored: true })
    expect(textOf(elsewhere.render)).toContain('count: 1')
  })

  it('a page exception is logged with a session reference, never the session id; no id is in any log line', async () => {
    const tab = await visit('A', '/boom')
    expect(tab.render.main.some((n) => n.type === 'exception')).toBe(true)
    const line = await replicas.A.waitForLine('stdout', /ui page exception/)
    const record = JSON.parse(line) as Record<string, unknown>
    expect(record.session).toBeUndefined()
    expect(record.session_ref).toBe(sessionRef(tab.session.sessionId))
    // A browser loads the page with its URL-session id in the address: the access log has the request, not the id.
    const bookmark = [...seenIds][0]!
    expect((await fetch(`${replicas.A.url}/notes?svc_sid=${bookmark}`)).status).toBe(200)
    await replicas.A.waitForLine('stdout', /"path":"\/notes".*svc_sid=<redacted>/)
    const lines = [...replicas.A.stdout, ...replicas.A.stderr, ...replicas.B.stdout, ...replicas.B.stderr]
    for (const id of seenIds) expect(lines.filter((l) => l.includes(id)), `lines with ${id}`).toEqual([])
  })
})
