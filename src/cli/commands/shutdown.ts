import { Command, Option } from 'clipanion'
import { EXIT } from '../../process/exit-codes.js'
import { DEFAULT_SHUTDOWN_WAIT_S } from '../shutdown/wait.js'

export class ShutdownCommand extends Command {
  static override paths = [['shutdown']]
  static override usage = Command.Usage({
    description: 'Stop the svc supervisor named by a pid file.',
    details: `
      Sends SIGTERM to the supervisor, waits for it to drain and exit, and removes the pid file and
      state file. A stale, invalid or reused pid is never signalled: the pid file is removed instead.
      Exit 0 when nothing runs any more, 1 when the process is still running, 2 when there is no pid file.
    `,
    examples: [
      ['Stop the server started in this directory', '$0 shutdown'],
      ['Wait up to 30 s, then SIGKILL the whole tree', '$0 shutdown --wait 30 --force'],
    ],
  })

  pidfile = Option.String('--pidfile', { description: 'Pid file path (default: SVC_PIDFILE, svc.config.json pidfile, or ./.svc.pid).' })
  wait = Option.String('--wait', { description: `Seconds to wait after SIGTERM (default ${DEFAULT_SHUTDOWN_WAIT_S}).` })
  force = Option.Boolean('--force,-f', false, { description: 'SIGKILL the process tree if it is still running after --wait.' })

  async execute(): Promise<number> {
    const waitS = this.wait === undefined ? DEFAULT_SHUTDOWN_WAIT_S : Number(this.wait)
    if (this.wait !== undefined && (this.wait.trim() === '' || !Number.isFinite(waitS) || waitS < 0)) {
      this.context.stderr.write(`svc shutdown: --wait must be a number of seconds >= 0 (e.g. 10 or 2.5), got ${JSON.stringify(this.wait)}\n`)
      return EXIT.USAGE
    }
    const { resolvePidfilePath } = await import('../shutdown/pidfile-path.js')
    const { shutdownFromPidfile } = await import('../shutdown/stop-supervisor.js')
    const pidfile = resolvePidfilePath(this.pidfile)
    const outcome = await shutdownFromPidfile({ pidfile, waitS, force: this.force })
    this.context.stdout.write(outcome.message + '\n')
    return outcome.code
  }
}
