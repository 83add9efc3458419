import { Builtins, Cli } from 'clipanion'
import { RunCommand, DevCommand, WorkbenchCommand } from './commands/serve.js'
import { COMMANDS } from './commands/index.js'
import { EXIT } from './exit-codes.js'

const cli = new Cli({ binaryLabel: 'svc', binaryName: 'svc', binaryVersion: '0.1.0', enableCapture: false })
for (const command of [RunCommand, DevCommand, WorkbenchCommand, ...COMMANDS, Builtins.HelpCommand, Builtins.VersionCommand]) {
  cli.register(command)
}

async function main(argv: string[]): Promise<number> {
  let command
  try {
    command = cli.process(argv)
  } catch (err) {
    // Unknown command, unknown flag, missing value: a usage error is exit 2.
    process.stderr.write(cli.error(err))
    return EXIT.USAGE
  }
  return cli.run(command)
}

process.exitCode = await main(process.argv.slice(2))
