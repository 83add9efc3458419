import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { afterEach, describe, expect, it } from 'vitest'
import { killTree, newTreeId, treeMembers, TREE_ENV } from '../../../src/process/kill-tree.js'
import { isRunning } from '../../../src/process/process-check.js'

/** The environment cookie: exactly the processes that carry it, never a look-alike. */
const started: ChildProcess[] = []
afterEach(() => {
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
})

async function withCookie(value: string | undefined, ignoreTerm = false): Promise<ChildProcess> {
  const env = { ...process.env }
  delete env[TREE_ENV]
  if (value !== undefined) env[TREE_ENV] = value
  const code = `${ignoreTerm ? "process.on('SIGTERM', () => {});" : ''} setInterval(() => {}, 1 << 30); process.stdout.write('up\\n')`
  const child = spawn(process.execPath, ['-e', code], { env, stdio: ['ignore', 'pipe', 'inherit'] })
  started.push(child)
  await once(child.stdout!, 'data')
  return child
}

describe('killTree', () => {
  it('finds members by exact cookie, or by instance prefix, and nothing else', async () => {
    const id = newTreeId()
    const member = await withCookie(`${id}.sidecar-1`)
    const other = await withCookie(`${id}.worker-2`)
    const lookAlike = await withCookie(`${id}x.sidecar-1`)
    const none = await withCookie(undefined)
    expect(treeMembers({ cookie: `${id}.sidecar-1` })).toEqual([member.pid])
    expect(treeMembers({ cookie: id, instance: true }).sort()).toEqual([member.pid, other.pid].sort())
    expect(treeMembers({ cookie: id })).toEqual([])
    const exits = Promise.all([once(member, 'exit'), once(other, 'exit')])
    expect(await killTree({ cookie: id, instance: true })).toBe(2)
    await exits
    expect(isRunning(lookAlike.pid!) && isRunning(none.pid!)).toBe(true)
  })

  it('SIGTERMs first and SIGKILLs what is still there after the grace', async () => {
    const id = newTreeId()
    const polite = await withCookie(id)
    const stubborn = await withCookie(id, true)
    const exits = Promise.all([once(polite, 'exit'), once(stubborn, 'exit')])
    const began = Date.now()
    await killTree({ cookie: id }, 500)
    expect(Date.now() - began).toBeGreaterThanOrEqual(450)
    const [[, politeSignal], [, stubbornSignal]] = await exits
    expect([politeSignal, stubbornSignal]).toEqual(['SIGTERM', 'SIGKILL'])
  })
})
