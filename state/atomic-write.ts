import { randomBytes } from 'node:crypto'
import { mkdir, open, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

const TEMP_SUFFIX = '.tmp'
const TEMP_NAME = /^\.(.+)\.\d+\.[0-9a-f]{8}\.tmp$/

/** Whether `candidate` is a temp file `writeFileAtomic(target)` writes (`.<name>.<pid>.<hex>.tmp` beside it). */
export function isAtomicTempOf(target: string, candidate: string): boolean {
  return dirname(candidate) === dirname(target) && TEMP_NAME.exec(basename(candidate))?.[1] === basename(target)
}

/** A fresh temp name beside `path` (`.<name>.<pid>.<hex>.tmp`): dev reload watchers ignore it. */
export function atomicTempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`)
}

/**
 * Write `text` to `path` so that a reader sees the old file or the new one, never a torn one:
 * write a temp file in the same directory (same filesystem, so rename is atomic), flush it,
 * rename over the target. Parent directories are created.
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const dir = dirname(path)
  await mkdir(dir, { recursive: true })
  const temp = atomicTempPath(path)
  try {
    const handle = await open(temp, 'w', 0o644)
    try {
      await handle.writeFile(text, 'utf8')
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, path)
  } catch (err) {
    await unlink(temp).catch(() => {})
    throw err
  }
}
