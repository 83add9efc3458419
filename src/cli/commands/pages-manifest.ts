import { Command, Option } from 'clipanion'
import { isSvcError } from '../../errors.js'
import { EXIT } from '../../process/exit-codes.js'

export class PagesManifestCommand extends Command {
  static override paths = [['pages', 'manifest']]
  static override usage = Command.Usage({
    description: "Print the app's pages as JSON.",
    details: `
      Loads the app target and prints {manifest_version, manifest_stability, title, pages}: each page's
      path, title, tags, description, icon, parameters and dependencies. The format is stable.
    `,
    examples: [
      ['Manifest of the default target (app:app)', '$0 pages manifest'],
      ['Manifest of another module', '$0 pages manifest ./src/app.ts:app'],
    ],
  })

  target = Option.String({ required: false, name: 'target' })

  async execute(): Promise<number> {
    const { resolveProcessSettings } = await import('../../settings/resolve.js')
    const { loadTarget } = await import('../../target/load-target.js')
    const { buildPageManifest } = await import('../pages/manifest.js')
    try {
      const { app } = await loadTarget(this.target ?? resolveProcessSettings({}).target)
      this.context.stdout.write(JSON.stringify(buildPageManifest(app), null, 2) + '\n')
      return EXIT.OK
    } catch (err) {
      if (!isSvcError(err)) throw err
      this.context.stderr.write(`svc pages manifest: ${err.message}\n`)
      return err.code.startsWith('SVC_ERR_TARGET_') ? EXIT.USAGE : EXIT.FAILURE
    }
  }
}
