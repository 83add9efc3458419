import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, onTestFinished } from 'vitest'
import { claimPidfile, releasePidfile } from '../../../state/pidfile-claim.js'
import { writeStateFile, stateFilePath } from '../../../state/state-file.js'
import { isRunning } from '../../../src/process/process-check.js'

const FIXTURE = join(import.meta.dirname, '..', '..', 'fixtures', 'claim-pidfile.mjs')
const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
function tempDir(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'svc-claim-')))
  dirs.push(d)
  return d
}

/** A process to name in a pidfile; killed after the test. */
function spawnLive(argv: string[]): ChildProcess {
  const child = spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'inherit'] })
  onTestFinished(() => {
    child.kill('SIGKILL')
  })
  return child
}
const line = (child: ChildProcess): Promise<string> =>
  new Promise((resolve) => {
    let buf = ''
    const onData = (chunk: Buffer): void => {
      buf += chunk.toString()
      const i = buf.indexOf('\n')
      if (i === -1) return
      child.stdout!.off('data', onData)
      resolve(buf.slice(0, i))
    }
    child.stdout!.on('data', onData)
  })
/** A pid that does not run: a child that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''])
  await new Promise((r) => child.once('exit', r))
  return child.pid!
}

describe('claimPidfile', () => {
  it('creates the pidfile with this pid when there is none, and leaves no temp file', () => {
    const dir = tempDir()
    const path = join(dir, 'run', '.svc.pid')
    expect(claimPidfile(path)).toEqual({ claimed: true, replaced: null })
    expect(readFileSync(path, 'utf8')).toBe(`${process.pid}\n`)
    expect(readdirSync(join(dir, 'run'))).toEqual(['.svc.pid'])
  })

  it('takes over a stale file: a pid that no longer runs, content that is not a pid, this very pid (a restarted container)', async () => {
    const dir = tempDir()
    const path = join(dir, '.svc.pid')
    const dead = await deadPid()
    writeFileSync(path, `${dead}\n`)
    expect(claimPidfile(path)).toEqual({ claimed: true, replaced: dead })
    writeFileSync(path, 'garbage')
    expect(claimPidfile(path)).toEqual({ claimed: true, replaced: 'invalid' })
    writeFileSync(path, `${process.pid}\n`)
    expect(claimPidfile(path)).toEqual({ claimed: true, replaced: process.pid })
    expect(readFileSync(path, 'utf8')).toBe(`${process.pid}\n`)
  })

  it('takes over a pid reused by another program, without signalling it', async () => {
    const dir = tempDir()
    const path = join(dir, '.svc.pid')
    const other = spawnLive(['-e', 'setInterval(() => {}, 1000); console.log("up")'])
    await line(other)
    writeFileSync(path, `${other.pid}\n`)
    expect(claimPidfile(path)).toEqual({ claimed: true, replaced: other.pid })
    expect(isRunning(other.pid!)).toBe(true)
  })

  it('refuses a file that names a running svc supervisor, with its state file when it wrote one', async () => {
    const dir = tempDir()
    const path = join(dir, '.svc.pid')
    const holder = spawnLive([FIXTURE, join(dir, 'unused.pid')])
    expect(await line(holder)).toBe('ready')
    writeFileSync(path, `${holder.pid}\n`)
    expect(claimPidfile(path)).toEqual({ claimed: false, pid: holder.pid, state: null })
    const state = {
      version: 2 as const,
      tree_id: 'a'.repeat(32),
      supervisor_pid: holder.pid!,
      ui_upstream: 'http://127.0.0.1:40000',
      gateway_host: '127.0.0.1',
      gateway_port: 8101,
      workers: [],
      sidecar_pid: null,
      started_at: new Date().toISOString(),
      target: 'app.ts:app',
    }
    await writeStateFile(stateFilePath(path), state)
    expect(claimPidfile(path)).toMatchObject({ claimed: false, pid: holder.pid, state: { gateway_port: 8101 } })
    expect(readFileSync(path, 'utf8')).toBe(`${holder.pid}\n`)
  })

  it('releasePidfile removes the file only while it names this process', () => {
    const dir = tempDir()
    const path = join(dir, '.svc.pid')
    writeFileSync(path, '12345\n')
    releasePidfile(path)
    expect(readFileSync(path, 'utf8')).toBe('12345\n')
    claimPidfile(path)
    releasePidfile(path)
    expect(readdirSync(dir)).toEqual([])
  })

  it('a start that took the stale file over between our read and our takeover keeps it: its claim is put back, ours refused', async () => {
    const dir = tempDir()
    const path = join(dir, '.svc.pid')
    writeFileSync(path, `${await deadPid()}\n`)
    const racer = spawnLive([FIXTURE, join(dir, 'unused.pid')])
    expect(await line(racer)).toBe('ready')
    let raced = false
    const claim = claimPidfile(path, {
      beforeTakeover: () => {
        if (raced) return
        raced = true
        // The racing start replaces the stale file with its own claim right now.
        expect(claimPidfile(path, { pid: racer.pid! })).toMatchObject({ claimed: true })
      },
    })
    expect(claim).toEqual({ claimed: false, pid: racer.pid, state: null })
    expect(readFileSync(path, 'utf8')).toBe(`${racer.pid}\n`)
    expect(readdirSync(dir)).toEqual(['.svc.pid'])
  })

  it('a takeover token left by a start that died does not block the stale file for ever', async () => {
    const dir = tempDir()
    const path = join(dir, '.svc.pid')
    const dead = await deadPid()
    writeFileSync(path, `${dead}\n`)
    writeFileSync(`${path}.takeover-${statSync(path).ino}`, `${await deadPid()}\n`)
    expect(claimPidfile(path)).toEqual({ claimed: true, replaced: dead })
    expect(readdirSync(dir)).toEqual(['.svc.pid'])
  })

  it('of several processes claiming at once (over a stale file, or none), exactly one wins and the others name it', { timeout: 90_000 }, async () => {
    // Mostly stale rounds: three or more starts taking over one stale file is where a claim can go wrong (two winners
    // in 2 of 3 runs of the earlier takeover, which moved the file aside and put a fresh claim back).
    for (const stale of [...Array<boolean>(8).fill(true), false]) {
      const dir = tempDir()
      const path = join(dir, '.svc.pid')
      if (stale) writeFileSync(path, `${await deadPid()}\n`)
      const procs = Array.from({ length: 6 }, () => spawnLive([FIXTURE, path]))
      for (const p of procs) expect(await line(p)).toBe('ready')
      const results = procs.map(line)
      const at = Date.now() + 300
      for (const p of procs) p.stdin!.write(`${at}\n`)
      const outcomes = (await Promise.all(results)).map((l) => JSON.parse(l) as { pid: number; claimed: boolean; holder?: number })
      const winners = outcomes.filter((o) => o.claimed)
      expect(winners, JSON.stringify(outcomes)).toHaveLength(1)
      for (const o of outcomes.filter((x) => !x.claimed)) expect(o.holder).toBe(winners[0]!.pid)
      expect(readFileSync(path, 'utf8')).toBe(`${winners[0]!.pid}\n`)
      expect(readdirSync(dir)).toEqual(['.svc.pid'])
      for (const p of procs) p.stdin!.end()
      await Promise.all(procs.map((p) => new Promise((r) => p.once('exit', r))))
    }
  })
})
