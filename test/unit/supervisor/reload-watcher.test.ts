import { appendFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { setTimeout as delay } from 'node:timers/promises'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { watchForReload } from '../../../supervisor/reload-watcher.js'
import { canonicalPath } from '../../../state/reload-ignore.js'
import { tempDir } from '../../helpers/cli-run.js'

interface Line { files: string[]; message: string }
const eventsOf = (line: Line): number => Number(/\((\d+) event\(s\)\)/.exec(line.message)?.[1])

describe('watchForReload', () => {
  it('a burst with several events for one file logs the event count and names the file once', async () => {
    const dir = await tempDir('svc-reload-watch-')
    const lines: Line[] = []
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(String(chunk)) as Line)
        done()
      },
    })
    const close = await watchForReload(dir, { files: [], dirs: [] }, [], pino({ messageKey: 'message' }, sink), () => 'reloading')
    try {
      // Created, then written twice: spaced past chokidar's 50 ms change throttle, within the
      // 100 ms debounce. A loaded machine may stretch the spacing past the debounce: then again, with another file.
      for (let attempt = 0; attempt < 5 && !lines.some((l) => eventsOf(l) > 1); attempt++) {
        const file = join(dir, `lib${attempt}.ts`)
        const seen = lines.length
        writeFileSync(file, 'export const a = 1\n')
        await delay(60)
        appendFileSync(file, 'export const b = 2\n')
        await delay(60)
        appendFileSync(file, 'export const c = 3\n')
        const deadline = Date.now() + 10_000
        while (lines.length === seen && Date.now() < deadline) await delay(20)
        // Whatever arrives later for this file belongs to this attempt.
        await delay(300)
      }
      expect(lines.some((l) => eventsOf(l) > 1), JSON.stringify(lines)).toBe(true)
      for (const line of lines) {
        expect(line.files, line.message).toEqual([...new Set(line.files)])
        expect(line.files.every((f) => f.startsWith(canonicalPath(dir)))).toBe(true)
      }
    } finally {
      await close()
    }
  })
})
