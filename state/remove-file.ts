import { unlink } from 'node:fs/promises'
import { unlinkSync } from 'node:fs'

/** Remove `path`; a file that is already gone is not an error. */
export async function removeFileIfPresent(path: string): Promise<void> {
  try {
    await unlink(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
}

/** The same for `process.on('exit')` and other paths where nothing async runs any more. */
export function removeFileIfPresentSync(path: string): void {
  try {
    unlinkSync(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
}
