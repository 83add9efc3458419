import { Command, Option } from 'clipanion'
import type { ServeRequest } from '../../../supervisor/start.js'
import { ServeCommand } from '../serve-options.js'
import { EXIT } from '../../process/exit-codes.js'

const RELOAD_SCOPES = ['gateway', 'full'] as const

/** Loaded on use: `svc shutdown` and `svc doctor` need none of the supervisor. */
async function serve(req: ServeRequest): Promise<number> {
  return (await import('../../../supervisor/start.js')).serve(req)
}

export class RunCommand extends ServeCommand {
  static override paths = [['run']]
  static override usage = Command.Usage({
    description: 'Serve the app in production mode: supervisor, ui sidecar and gateway worker(s) on one port.',
    examples: [['Serve app.ts on port 8000', 'svc run app.ts:app --port 8000']],
  })

  async execute(): Promise<number> {
    return serve({ mode: 'run', flags: this.settingFlags(), reload: null })
  }
}

export class WorkbenchCommand extends ServeCommand {
  static override paths = [['workbench']]
  static override usage = Command.Usage({
    description: 'Like run, for path-proxy hosting (Posit Workbench/Connect style): trusts X-Forwarded-* and prints where things are.',
  })

  async execute(): Promise<number> {
    const flags = this.settingFlags()
    flags.trust_proxy = { flag: 'workbench', value: true }
    return serve({ mode: 'workbench', flags, reload: null })
  }
}

export class DevCommand extends ServeCommand {
  static override paths = [['dev']]
  static override usage = Command.Usage({
    description: 'Serve for development: pretty logs on a terminal, optional reload on file changes.',
    examples: [
      ['Reload gateway workers on change', 'svc dev app.ts:app --reload'],
      ['Also restart the sidecar on change', 'svc dev app.ts:app --reload --reload-scope full'],
    ],
  })

  reload = Option.Boolean('--reload', false, { description: 'Watch the app directory and reload on change.' })
  reloadScope = Option.String('--reload-scope', 'gateway', { description: 'gateway (default): replace gateway workers; full: restart the sidecar too.' })
  typeCheck = Option.Boolean('--type-check', { description: "Type-check the project beside the tree with its own TypeScript (default; --no-type-check: don't)." })

  async execute(): Promise<number> {
    if (!(RELOAD_SCOPES as readonly string[]).includes(this.reloadScope)) {
      this.context.stderr.write(
        `svc: usage error: --reload-scope must be 'gateway' or 'full' (got ${JSON.stringify(this.reloadScope)})\n`,
      )
      return EXIT.USAGE
    }
    const flags = this.settingFlags()
    if (this.typeCheck === false) flags.dev_type_check = { flag: '--no-type-check', value: false }
    else if (this.typeCheck === true) flags.dev_type_check = { flag: '--type-check', value: true }
    if (!flags.log_format && process.env.SVC_LOG_FORMAT === undefined && process.stdout.isTTY) {
      flags.log_format = { flag: 'dev default', value: 'pretty' }
    }
    return serve({ mode: 'dev', flags, reload: this.reload ? (this.reloadScope as (typeof RELOAD_SCOPES)[number]) : null })
  }
}
