import { spawn } from 'node:child_process'
import { killTree, type Tree } from '../src/process/kill-tree.js'
import { parseChildEnv } from '../src/process/child-env.js'
import { EXIT, exitCodeOf } from '../src/process/exit-codes.js'
import { runProcess } from '../src/process/run-process.js'
import { GUARD_REPORT_MS, GUARD_STOP_GRACE_MS } from '../src/internal/deadlines.js'
import { redactArgv } from '../src/logging/redact.js'
import { createRootLogger } from '../src/logging/logger.js'
import { z } from '../src/internal/zod.js'
import { processChannel } from '../ipc/channel.js'
import { SidecarToSupervisor } from '../ipc/messages.js'

/**
 * Runs a `ui_command` sidecar for the supervisor. The command gets its own process group and
 * inherits the guard's tree cookie (`SVC_TREE_ID`), so a stop reaches `sh -c` / `npm run` and
 * everything they started, also helpers in a session of their own. When the supervisor vanishes
 * (IPC disconnect, e.g. SIGKILL) the guard takes the whole tree down. Reports how the command
 * ended over IPC, then exits with its code (128 + signal number when killed by a signal).
 */
await runProcess({ title: 'svc sidecar-guard' }, async (proc) => {
  const argv = JSON.parse(process.argv[2] ?? '[]') as string[]
  const [file, ...args] = argv
  if (!file) {
    process.stderr.write('svc: ui_command is empty\n')
    return proc.exit(EXIT.USAGE)
  }
  // The guard reads no settings: its log lines are IPC trouble only, JSON on stderr.
  const logger = createRootLogger({ log_level: 'warn', log_format: 'json' }, process.stderr)
  const channel = processChannel(process, { incoming: z.never(), outgoing: SidecarToSupervisor }, logger, 'supervisor')
  const child = spawn(file, args, { stdio: 'inherit', env: process.env, detached: true })
  if (child.pid !== undefined) channel.send({ svc: 1, type: 'child_started', pid: child.pid })
  const tree: Tree = { pid: child.pid ?? null, cookie: parseChildEnv().treeId ?? null }

  // One ending: a stop (SIGTERM to every member, SIGKILL after the grace) or, when the command
  // exited on its own, SIGKILL of what it left behind. The later caller joins the earlier one;
  // a second Ctrl-C kills the tree now. The command's exit then reports and ends the guard.
  let ending: Promise<number> | null = null
  const end = (graceMs: number): Promise<number> => (ending ??= killTree(tree, graceMs))
  proc.serve({ close: () => end(GUARD_STOP_GRACE_MS), destroy: () => killTree(tree) })

  const report = (code: number | null, signal: NodeJS.Signals | null): void => {
    const done = (): void => void proc.exit(exitCodeOf(code, signal))
    channel.send({ svc: 1, type: 'child_exit', code, signal }, undefined, { sent: done })
    setTimeout(done, GUARD_REPORT_MS).unref()
  }
  child.on('error', (err) => {
    process.stderr.write(`svc: cannot start ui_command ${JSON.stringify(redactArgv(argv))}: ${err.message}\n`)
    report(127, null)
  })
  child.on('exit', (code, signal) => void end(0).then(() => report(code, signal)))
})
