import { Command, Option } from 'clipanion'
import { EXIT } from '../../process/exit-codes.js'

export class DoctorCommand extends Command {
  static override paths = [['doctor']]
  static override usage = Command.Usage({
    description: 'Check the environment, the app target and the deployment settings.',
    details: `
      Prints one row per check: PASS, WARN or FAIL, the check id and a detail. Nothing is started;
      the app module is imported once to read its settings. When an svc runs with the pid file,
      the rows judge that tree (its port and workers; the running_tree row says so); --port and
      --workers judge a start with those instead. Exit 1 when any row is FAIL, unless --warnings-only.
    `,
    examples: [
      ['Check the default target (app:app)', '$0 doctor'],
      ['Machine-readable, treating advice as failures', '$0 doctor src/app.ts:app --json --strict'],
    ],
  })

  target = Option.String({ required: false, name: 'target' })
  json = Option.Boolean('--json', false, { description: 'Print one JSON object instead of text rows.' })
  warningsOnly = Option.Boolean('--warnings-only', false, { description: 'Report FAIL rows but exit 0.' })
  strict = Option.Boolean('--strict', false, { description: 'Deployment advice (WARN) counts as FAIL.' })
  pidfile = Option.String('--pidfile', { description: 'Pid file of the svc to judge; its state file names the running tree (default ./.svc.pid).' })
  port = Option.String('--port', { description: 'Judge a start on this port (as svc run --port).' })
  workers = Option.String('--workers', { description: 'Judge a start with this many gateway workers (as svc run --workers).' })

  async execute(): Promise<number> {
    // Loaded on use, like every command's implementation: `svc --help` stays instant.
    const { runDoctor } = await import('../doctor/run-doctor.js')
    const { formatJson, formatText } = await import('../doctor/report.js')
    const report = await runDoctor({ target: this.target, pidfile: this.pidfile, port: this.port, workers: this.workers, strict: this.strict, warningsOnly: this.warningsOnly })
    const text = this.json ? formatJson(report) : formatText(report)
    await new Promise<void>((resolve) => this.context.stdout.write(text, () => resolve()))
    const code = report.status === 'fail' ? EXIT.FAILURE : EXIT.OK
    // The imported app may hold the event loop open (a database pool, a timer); once the report
    // is written doctor is done. Unref'd: a process with nothing left open exits on its own first.
    setTimeout(() => process.exit(code), 50).unref()
    return code
  }
}
