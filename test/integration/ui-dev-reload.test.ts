import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { PageClient, startSidecar, textOf, type Sidecar } from '../helpers/ui-sidecar.js'

const file = join(import.meta.dirname, '..', 'fixtures', `ui-reload-${process.pid}.ts`)
let sc: Sidecar | undefined
let client: PageClient | undefined

afterAll(async () => {
  await client?.close()
  await sc?.stop()
  rmSync(file, { force: true })
})

it('SVC_DEV_RELOAD=1 loads the app on fresh page threads when the supervisor asks (and answers it); open sessions continue there with their state once it commits', async () => {
  writeFileSync(file, `import { Svc } from '../../src/app.js'
export const app = new Svc({ log_level: 'warn' })
app.page('/', (st) => {
  st.sessionState.n = (st.sessionState.n ?? 0) + 1
  st.text('v1 n=' + st.sessionState.n)
})
`)
  sc = await startSidecar(`test/fixtures/ui-reload-${process.pid}.ts`, { SVC_DEV_RELOAD: '1' })
  client = await new PageClient(`ws://127.0.0.1:${sc.port}/_stcore/stream`).open()
  client.send({ type: 'hello', sessionId: null, path: '/', query: '' })
  const { sessionId } = await client.next('session')
  expect(textOf(await client.render())).toBe('v1 n=1')
  writeFileSync(file, readFileSync(file, 'utf8').replace("'v1 n='", "'v2 n='"))
  // The page server watches nothing itself: it reloads when the supervisor asks over IPC, and answers.
  const answers: { type?: string }[] = []
  const waiting: (() => void)[] = []
  sc.proc.on('message', (m: { type?: string }) => {
    answers.push(m)
    for (const wake of waiting.splice(0)) wake()
  })
  const answered = async (type: string): Promise<unknown> => {
    for (;;) {
      const m = answers.find((a) => a.type === type || a.type === 'reload_failed')
      if (m) return m
      await new Promise<void>((resolve) => waiting.push(resolve))
    }
  }
  sc.proc.send({ svc: 1, type: 'reload', id: 7 })
  // Fresh page threads load the new code; the session stays where it is until the reload is committed.
  expect(await answered('reload_ready')).toMatchObject({ svc: 1, type: 'reload_ready', id: 7 })
  expect(answers.some((a) => a.type === 'reloaded')).toBe(false)
  sc.proc.send({ svc: 1, type: 'reload_commit', id: 7 })
  // Then it moves there with its state, on the same socket.
  await client.next('resume', 20_000)
  expect(await answered('reloaded')).toMatchObject({ svc: 1, type: 'reloaded', id: 7, moved: 1 })
  client.send({ type: 'hello', sessionId, path: '/', query: '' })
  expect(await client.next('session')).toMatchObject({ sessionId, restored: true })
  expect(textOf(await client.render(10_000))).toBe('v2 n=2')
})
