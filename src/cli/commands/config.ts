import { Command, Option } from 'clipanion'
import { isSvcError } from '../../errors.js'
import { kSettingsInput } from '../../internal/symbols.js'
import { ServeCommand } from '../serve-options.js'
import { EXIT } from '../../process/exit-codes.js'

/** An app that cannot be imported is a runtime failure (1); a bad value, file or target path is usage (2). */
const IMPORT_FAILURES = new Set(['SVC_ERR_TARGET_IMPORT_FAILED', 'SVC_ERR_TARGET_EXPORT_MISSING', 'SVC_ERR_TARGET_NOT_SVC'])

export class ConfigCommand extends ServeCommand {
  static override paths = [['config']]
  static override usage = Command.Usage({
    description: 'Print the effective settings `svc run` would use, each with its source; secrets redacted.',
    details: `
      Resolves settings exactly as run does: defaults, the app's new Svc({...}) options (the target
      is imported when its file exists), svc.config.json, SVC_* environment variables, then flags.
      Each row names its source: default, options, file, env or flag. Secrets print as <redacted>.
      Nothing is started. Exit 2 for a bad value, file or target path, 1 when the app fails to import.
    `,
    examples: [
      ['Settings for the default target', '$0 config'],
      ['As JSON, with a flag on top', '$0 config app.ts:app --port 9000 --json'],
    ],
  })

  json = Option.Boolean('--json', false, { description: 'Print one JSON object instead of a table.' })

  async execute(): Promise<number> {
    const { effectiveConfig, formatConfigText } = await import('../config/effective-config.js')
    const { loadTarget } = await import('../../target/load-target.js')
    const secrets = await import('../../secrets/secrets.js')
    let text: string
    try {
      const config = await effectiveConfig({
        flags: this.settingFlags(),
        env: process.env,
        cwd: process.cwd(),
        loadOptions: async (target, cwd) => {
          const { app, file, exportName } = await loadTarget(target, cwd)
          return { options: app[kSettingsInput], file, exportName, secrets: app[secrets.kSecretsReport] }
        },
      })
      text = this.json ? JSON.stringify(config, null, 2) + '\n' : formatConfigText(config)
    } catch (err) {
      if (!isSvcError(err)) throw err
      this.context.stderr.write(`svc config: error: ${err.message}\n`)
      return IMPORT_FAILURES.has(err.code) ? EXIT.FAILURE : EXIT.USAGE
    }
    await new Promise<void>((resolve) => this.context.stdout.write(text, () => resolve()))
    // The imported app may hold the event loop open (a pool, a timer); the answer is written.
    setTimeout(() => process.exit(EXIT.OK), 50).unref()
    return EXIT.OK
  }
}
