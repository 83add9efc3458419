import { mkdtempSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { watchAppModule } from '../../../src/ui/server/dev-reload.js'

const dirs: string[] = []
const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('the page server watcher under svc dev --reload', () => {
  it('is watching once it resolves: an edit made at once starts a reload', { timeout: 10_000 }, async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'svc-ui-watch-')))
    dirs.push(dir)
    // Enough files that chokidar's initial scan is not instant.
    for (let i = 0; i < 40; i++) {
      mkdirSync(join(dir, `mod${i}`))
      writeFileSync(join(dir, `mod${i}`, 'index.ts'), `export const n = ${i}\n`)
    }
    const file = join(dir, 'app.ts')
    writeFileSync(file, 'export const app = 1\n')
    const logger = pino({ level: 'silent' })
    const changed = new Promise<string>((resolve) => {
      logger.info = ((obj: { changed?: string }) => {
        if (obj?.changed) resolve(obj.changed)
      }) as typeof logger.info
    })
    const watcher = await watchAppModule({ file, logger, own: { files: [], dirs: [] }, onReload: () => {} })
    closers.push(() => watcher.close())
    writeFileSync(join(dir, 'mod7', 'index.ts'), 'export const n = 70\n')
    await expect(changed).resolves.toBe(join(dir, 'mod7', 'index.ts'))
  })
})
