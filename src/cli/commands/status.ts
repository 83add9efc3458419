import { Command, Option } from 'clipanion'
import { EXIT } from '../../process/exit-codes.js'

/** How long `svc status` waits for the supervisor's answer (it measures CPU over 0.25 s and asks each process). */
const STATUS_TIMEOUT_MS = 10_000

export class StatusCommand extends Command {
  static override paths = [['status']]
  static override usage = Command.Usage({
    description: 'Show the running tree: every process with its role, status, pid, uptime, restarts, last exit, memory and CPU.',
    details: `
      Finds the supervisor by its pid file (as svc shutdown does) and asks it over its control
      socket, which only the user who started svc can open. Lists the supervisor, the ui sidecar,
      each gateway worker (those a reload replaced too, while they drain) and each page thread of
      the bundled page server (they start with the first page session), each with its status
      (online, starting, draining, restarting, stopping, stopped), the live page sessions, the
      last reload and the recycles. --json prints the same as one JSON object (a stable format,
      docs/cli.md). Exit 0 when the tree answered, 1 when it is not running or cannot be reached.
    `,
    examples: [
      ['The tree started in this directory', '$0 status'],
      ['As JSON, for scripts', '$0 status --json'],
    ],
  })

  pidfile = Option.String('--pidfile', { description: 'Pid file path (default: SVC_PIDFILE, svc.config.json pidfile, or ./.svc.pid).' })
  json = Option.Boolean('--json', false, { description: 'Print the status as JSON.' })

  async execute(): Promise<number> {
    const [{ askRunningTree }, { statusTable }] = await Promise.all([import('../control/ask-tree.js'), import('../control/status-table.js')])
    const answer = await askRunningTree('status', this.pidfile, { svc: 1, op: 'status' }, STATUS_TIMEOUT_MS, this.context.stderr)
    if (answer === null) return EXIT.FAILURE
    if (!answer.ok || !answer.status) {
      this.context.stderr.write(`svc status: ${answer.ok ? 'the supervisor sent no status' : `${answer.error.message} [${answer.error.code}]`}\n`)
      return EXIT.FAILURE
    }
    this.context.stdout.write(this.json ? JSON.stringify(answer.status, null, 2) + '\n' : statusTable(answer.status))
    return EXIT.OK
  }
}
