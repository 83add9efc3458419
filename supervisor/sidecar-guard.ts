import { spawn } from 'node:child_process'
import { constants } from 'node:os'
import { signalGroup, killTree } from './kill-tree.js'

/**
 * Runs a `ui_command` sidecar for the supervisor. The command gets its own process group so a
 * stop reaches `sh -c` / `npm run` and everything they started; when the supervisor vanishes
 * (IPC disconnect, e.g. SIGKILL) the guard takes the whole group down. Reports how the command
 * ended over IPC, then exits with its code (128 + signal number when killed by a signal).
 */
const STOP_GRACE_MS = 5_000
const osSignals = constants.signals as Record<string, number>

const argv = JSON.parse(process.argv[2] ?? '[]') as string[]
const [file, ...args] = argv
if (!file) {
  process.stderr.write('svc: ui_command is empty\n')
  process.exit(2)
}
const child = spawn(file, args, { stdio: 'inherit', env: process.env, detached: true })
let stopping = false
if (child.pid !== undefined) process.send?.({ svc: 1, type: 'child_started', pid: child.pid })

const stop = (): void => {
  if (stopping || child.pid === undefined) return
  stopping = true
  signalGroup(child.pid, 'SIGTERM')
  setTimeout(() => void killTree(child.pid!), STOP_GRACE_MS).unref()
}

child.on('error', (err) => {
  process.stderr.write(`svc: cannot start ui_command ${JSON.stringify(argv)}: ${err.message}\n`)
  report(127, null)
})
child.on('exit', (code, signal) => {
  // Stragglers the command left in its group (a shell's children) go with it.
  if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL')
  report(code, signal)
})
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
process.on('SIGHUP', stop)
process.on('disconnect', stop)

function report(code: number | null, signal: NodeJS.Signals | null): void {
  const exitCode = code ?? 128 + (signal ? (osSignals[signal] ?? 0) : 0)
  const done = (): never => process.exit(exitCode)
  if (process.connected && process.send) {
    process.send({ svc: 1, type: 'child_exit', code, signal }, undefined, undefined, done)
    setTimeout(done, 1_000).unref()
  } else {
    done()
  }
}
