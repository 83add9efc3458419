import { Command, Option } from 'clipanion'
import { EXIT } from '../../process/exit-codes.js'

const SCOPES = ['gateway', 'full'] as const
/** Default wait for the reload's outcome: longer than a start (the probe and the new workers each load the app). */
const DEFAULT_RELOAD_WAIT_S = 120

/** Below this, the command's own start-up is not worth a word. */
const STARTUP_NOTE_MS = 1_000

/**
 * The report's time starts when the supervisor received the request; on a loaded machine this
 * command can take seconds to start before that. Said when it did, so the two times agree.
 */
function commandTime(r: { at: string }): string {
  const started = performance.timeOrigin
  const before = Date.parse(r.at) - started
  if (before < STARTUP_NOTE_MS) return ''
  return `; this command ran ${((Date.now() - started) / 1000).toFixed(1)} s, ${(before / 1000).toFixed(1)} s of it before the supervisor received the request`
}

export class ReloadCommand extends Command {
  static override paths = [['reload']]
  static override usage = Command.Usage({
    description: 'Serve new code from a running svc with no failed request; exit 0 once the new code serves.',
    details: `
      Finds the supervisor by its pid file and asks it over its control socket (only the user who
      started svc can). The supervisor reads the app and svc.config.json again in a probe, starts
      new gateway workers, waits until they are ready, has the bundled page server load the new
      pages on fresh threads (open page sessions move there with their state), then drains the old
      workers. --scope full also restarts the ui sidecar (a ui_command). A reload that fails (a
      syntax error, a worker that does not start, a start deadline, a setting a reload cannot
      change) leaves the running code serving: exit 1 with the cause. Reloads asked for while one
      runs wait for it and are done together, never interleaved. SIGHUP to the supervisor does the
      same as a gateway reload (systemd: ExecReload=/bin/kill -HUP $MAINPID). Exit 2 on a bad flag.
    `,
    examples: [
      ['Serve the new code of the app started in this directory', '$0 reload'],
      ['Restart the ui_command sidecar too', '$0 reload --scope full'],
    ],
  })

  pidfile = Option.String('--pidfile', { description: 'Pid file path (default: SVC_PIDFILE, svc.config.json pidfile, or ./.svc.pid).' })
  scope = Option.String('--scope', 'gateway', { description: 'gateway (default): new workers and pages; full: restart the sidecar too.' })
  wait = Option.String('--wait', { description: `Seconds to wait for the outcome (default ${DEFAULT_RELOAD_WAIT_S}).` })
  json = Option.Boolean('--json', false, { description: 'Print the reload report as JSON.' })

  async execute(): Promise<number> {
    if (!(SCOPES as readonly string[]).includes(this.scope)) {
      this.context.stderr.write(`svc reload: --scope must be 'gateway' or 'full' (got ${JSON.stringify(this.scope)})\n`)
      return EXIT.USAGE
    }
    const waitS = this.wait === undefined ? DEFAULT_RELOAD_WAIT_S : Number(this.wait)
    if (this.wait !== undefined && (this.wait.trim() === '' || !Number.isFinite(waitS) || waitS <= 0)) {
      this.context.stderr.write(`svc reload: --wait must be a number of seconds > 0 (e.g. 120), got ${JSON.stringify(this.wait)}\n`)
      return EXIT.USAGE
    }
    const [{ askRunningTree }, { describeReload }] = await Promise.all([import('../control/ask-tree.js'), import('../control/status-table.js')])
    const answer = await askRunningTree('reload', this.pidfile, { svc: 1, op: 'reload', scope: this.scope as (typeof SCOPES)[number] }, waitS * 1000, this.context.stderr)
    if (answer === null) return EXIT.FAILURE
    if (this.json && answer.reload) this.context.stdout.write(JSON.stringify(answer.reload, null, 2) + '\n')
    if (answer.ok) {
      if (!this.json) this.context.stdout.write(`svc reload: ${answer.reload ? describeReload(answer.reload) + commandTime(answer.reload) : 'done'}\n`)
      return EXIT.OK
    }
    this.context.stderr.write(`svc reload: failed, the running code keeps serving: ${answer.error.message} [${answer.error.code}]\n`)
    return EXIT.FAILURE
  }
}
