import { Writable } from 'node:stream'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { Svc } from '../../../src/app.js'
import { createUiTestHandle } from '../../../src/testing/app-test.js'
import type { St } from '../../../src/ui/st-types.js'

/** A page app whose logger writes JSON lines into `lines`, with the given error-detail setting. */
function appWith(showErrorDetails: boolean | null, page: (st: St) => void) {
  const lines: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>)
      done()
    },
  })
  const svc = new Svc({ title: 'T', log_level: 'fatal' })
  svc.page('/reports', page)
  const app = { pages: svc.pages, settings: { title: 'T', debug: false, show_error_details: showErrorDetails, theme: {} }, logger: pino({ level: 'info' }, sink) }
  return { app, lines }
}

function boom(): never {
  throw new TypeError('secret detail at /srv/app/db.ts')
}

describe('page errors', () => {
  it('details off: a thrown error shows a generic message, no name, message or stack', async () => {
    const { app, lines } = appWith(false, () => boom())
    const at = await createUiTestHandle(app, { target: '/reports' }).run()
    expect(at.exception).toHaveLength(1)
    expect(at.exception[0]!.props).toEqual({ name: 'Error', message: 'This page hit an error.', stack: null, hidden: true, requestId: null })
    expect(JSON.stringify(at.exception[0]!.props)).not.toContain('secret')
    const logged = lines.filter((l) => l.msg === 'ui page exception')
    expect(logged).toHaveLength(1)
    expect(logged[0]!.level).toBe(50)
    expect(logged[0]!.page).toBe('/reports')
    expect((logged[0]!.err as { stack: string }).stack).toContain('secret detail at /srv/app/db.ts')
  })

  it('details off: st.exception(err) called by the page hides the stack too and is logged', async () => {
    const { app, lines } = appWith(false, (st) => {
      try {
        boom()
      } catch (err) {
        st.exception(err)
      }
      st.text('after')
    })
    const at = await createUiTestHandle(app, { target: '/reports' }).run()
    expect(at.exception[0]!.props).toMatchObject({ hidden: true, stack: null, message: 'This page hit an error.' })
    expect(at.text[0]!.value).toBe('after')
    expect(lines.filter((l) => l.msg === 'ui page exception' && l.level === 50)).toHaveLength(1)
  })

  it('details on (and the test handle default): name, message and stack as thrown', async () => {
    for (const setting of [true, null]) {
      const { app } = appWith(setting, () => boom())
      const at = await createUiTestHandle(app, { target: '/reports' }).run()
      expect(at.exception[0]!.props).toMatchObject({ name: 'TypeError', message: 'secret detail at /srv/app/db.ts', hidden: false })
      expect(at.exception[0]!.props.stack).toContain('at boom')
    }
  })
})
