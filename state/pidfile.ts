import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { z } from '../src/internal/zod.js'
import { SvcError } from '../src/errors.js'
import { writeFileAtomic } from './atomic-write.js'
import { removeFileIfPresent } from './remove-file.js'

/**
 * The pidfile: `<pid>\n` in ASCII, naming the supervisor. Written atomically so `svc shutdown`
 * never reads half a number.
 */
export const Pidfile = z
  .string()
  .regex(/^\s*\d{1,10}\s*$/, 'must hold one process id, e.g. "1234\\n"')
  .transform((raw) => Number(raw.trim()))
  // 0 and 1 would make kill() hit the process group or init: never valid here.
  .pipe(z.number().int().min(2).max(2 ** 31 - 1))
export type Pidfile = z.infer<typeof Pidfile>

export type PidfileRead = { kind: 'missing' } | { kind: 'invalid'; raw: string } | { kind: 'ok'; pid: number }

/** Parse pidfile content; throws `SVC_ERR_PIDFILE_INVALID` naming what was found. */
export function parsePidfile(raw: string, path = 'pid file'): number {
  const parsed = Pidfile.safeParse(raw)
  if (!parsed.success) {
    throw new SvcError('SVC_ERR_PIDFILE_INVALID', `${path} holds ${JSON.stringify(raw.slice(0, 40))}, not a process id; delete it or run "svc shutdown" to clean it up`)
  }
  return parsed.data
}

export async function writePidfile(path: string, pid: number = process.pid): Promise<void> {
  await writeFileAtomic(path, `${pid}\n`)
}

export async function readPidfile(path: string): Promise<PidfileRead> {
  let raw: string
  try {
    raw = await readFile(path, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' }
    // Unreadable (a directory, no permission) counts as invalid: shutdown removes it if it can.
    return { kind: 'invalid', raw: `(unreadable: ${(err as Error).message})` }
  }
  const parsed = Pidfile.safeParse(raw)
  return parsed.success ? { kind: 'ok', pid: parsed.data } : { kind: 'invalid', raw }
}

/** Read synchronously; for exit paths that must check the file still names this process. */
export function readPidfileSync(path: string): PidfileRead {
  try {
    const raw = readFileSync(path, 'utf8')
    const parsed = Pidfile.safeParse(raw)
    return parsed.success ? { kind: 'ok', pid: parsed.data } : { kind: 'invalid', raw }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' }
    return { kind: 'invalid', raw: `(unreadable: ${(err as Error).message})` }
  }
}

/** Remove the pidfile; one that is already gone is fine. */
export const removePidfile = removeFileIfPresent
