import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')

/**
 * Messages between svc's processes go through the checked channel (ipc/channel.ts), whose schemas
 * live in the IPC union (ipc/messages.ts), with no exception: the probe child's report too.
 */

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return /\.ts$/.test(name) ? [path] : []
  })
}

describe('inter-process messages', () => {
  it('no process sends around the checked channel (process.send with a message)', () => {
    const raw = ['src', 'gateway', 'supervisor', 'state', 'ipc', 'probe']
      .flatMap((dir) => sources(join(root, dir)))
      .filter((file) => /process\.send!?\(/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file))
    expect(raw).toEqual([])
  })
})
