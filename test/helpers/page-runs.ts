import { Svc } from '../../src/app.js'
import { createUiTestHandle, type UiTestHandle } from '../../src/testing/app-test.js'
import type { ClientMessage } from '../../src/ui/wire/protocol.js'
import type { St } from '../../src/ui/st-types.js'

/** An app of one page at `/`, run once through AppTest; `runs()` counts the page's runs so far. */
export async function startCountedPage(page: (st: St) => void | Promise<void>): Promise<UiTestHandle & { runs: () => number }> {
  const app = new Svc({ title: 'T', log_level: 'fatal' })
  let runs = 0
  app.page('/', async (st) => {
    runs++
    await page(st)
  })
  const at = await createUiTestHandle(app).run()
  return Object.assign(at, { runs: () => runs })
}

/** The page-protocol message a browser sends for a widget's new value (`trigger` for buttons). */
export const widgetMessage = (id: string, value: unknown, trigger?: boolean): ClientMessage => ({ v: 1, type: 'widget', id, value, ...(trigger ? { trigger } : {}) })
