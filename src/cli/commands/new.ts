import { Command, Option } from 'clipanion'
import { EXIT } from '../../process/exit-codes.js'

export class NewCommand extends Command {
  static override paths = [['new']]
  static override usage = Command.Usage({
    description: 'Create a new svc project: an app with an API route and a page, its test, tsconfig, scripts.',
    details: `
      Writes package.json ("type": "module"; scripts dev, start, test, typecheck), app.ts, app.test.ts,
      tsconfig.json, .gitignore and README.md into DIR (default: the current folder; created if
      missing). The project name is the folder name, which must be a valid npm package name
      (or pass --name). A folder that is not empty (apart from .git) is refused unless --force.

      The svc dependency: the tarball or folder the running svc was installed from (a file: spec),
      the running checkout when svc runs from one, or ^<version> when it came from a registry.
      --svc-spec overrides it. Exit 2 on a usage error; nothing is written then.
    `,
    examples: [
      ['Create my-app/ and follow the printed next steps', '$0 new my-app'],
      ['Scaffold into the current (empty) folder', '$0 new'],
      ['Depend on a tarball you packed', '$0 new my-app --svc-spec file:../svc/svc-0.1.0.tgz'],
    ],
  })

  dir = Option.String({ required: false, name: 'dir' })
  force = Option.Boolean('--force', false, { description: 'Write into a folder that is not empty (overwrites files with the same names).' })
  name = Option.String('--name', { description: 'Project name for package.json (default: the folder name).' })
  svcSpec = Option.String('--svc-spec', { description: 'npm dependency spec for svc (default: where the running svc came from).' })

  async execute(): Promise<number> {
    // Loaded on use, like every command's implementation: `svc --help` stays instant.
    const { scaffoldProject } = await import('../new/scaffold.js')
    const outcome = await scaffoldProject({ dir: this.dir ?? '.', cwd: process.cwd(), force: this.force, name: this.name, svcSpec: this.svcSpec })
    if (!outcome.ok) {
      this.context.stderr.write(`svc new: ${outcome.message}\n`)
      return EXIT.USAGE
    }
    this.context.stdout.write(outcome.summary)
    return EXIT.OK
  }
}
