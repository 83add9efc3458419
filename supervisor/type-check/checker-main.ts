import { constants, getPriority, setPriority } from 'node:os'
import { pathToFileURL } from 'node:url'
import type * as TS from 'typescript'
import { runProcess } from '../../src/process/run-process.js'
import { createRootLogger } from '../../src/logging/logger.js'
import { z } from '../../src/internal/zod.js'
import { processChannel } from '../../ipc/channel.js'
import { TypeCheckerToSupervisor } from '../../ipc/messages.js'
import { watchProject } from './watch-project.js'

/**
 * `svc dev`'s type checker, forked by the supervisor (supervisor/type-check/type-checker.ts) with
 * its arguments as JSON: the project's TypeScript, its tsconfig and where to keep the build info.
 * It runs at a lower priority than the tree, so a check never slows a reload, and reports each
 * check's errors over IPC. It exits when the supervisor goes (IPC disconnect) or stops it.
 */
/** How much nicer than the tree (Unix nice levels): a check takes only what the tree leaves of the CPU. */
const NICER_BY = 10

const Args = z.object({ typescript: z.string(), tsconfig: z.string(), buildInfo: z.string(), cwd: z.string() })

await runProcess({ title: 'svc type-check' }, async (proc) => {
  // Its log lines are IPC trouble only, JSON on stderr.
  const logger = createRootLogger({ log_level: 'warn', log_format: 'json' }, process.stderr)
  const channel = processChannel(process, { incoming: z.never(), outgoing: TypeCheckerToSupervisor }, logger, 'supervisor')
  proc.logUncaught(logger, 'the type check stops; svc dev goes on without it')
  try {
    setPriority(Math.min(constants.priority.PRIORITY_LOW, getPriority() + NICER_BY))
  } catch {
    // Not allowed here (some containers): it still runs beside the tree, only at the same priority.
  }
  try {
    const args = Args.parse(JSON.parse(process.argv[2] ?? '{}'))
    const ts = ((await import(pathToFileURL(args.typescript).href)) as { default: typeof TS }).default
    const watch = watchProject(ts, {
      ...args,
      onReport: (report) => {
        channel.send({ svc: 1, type: 'checked', ...report })
        // Idle until the next save: give back the old program now. Left to V8, the heap grew by
        // about 40 MB a check (bench:type-check); forked with --expose-gc for this.
        globalThis.gc?.()
      },
    })
    proc.serve({
      close: async () => {
        watch.close()
        return proc.exit(0)
      },
      destroy: () => proc.exit(1),
    })
  } catch (err) {
    channel.send({ svc: 1, type: 'fatal', message: (err as Error)?.message ?? String(err) }, undefined, { sent: () => void proc.exit(1) })
  }
})
