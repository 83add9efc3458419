import { Builtins, Cli } from 'clipanion'
import { RunCommand, DevCommand, WorkbenchCommand } from './commands/serve.js'
import { COMMANDS } from './commands/index.js'
import { EXIT } from '../process/exit-codes.js'
import { closestName } from '../internal/closest-name.js'

/** Colour only for a terminal, and never with NO_COLOR set (https://no-color.org). */
function colours(stream: NodeJS.WriteStream): boolean {
  return stream.isTTY === true && !process.env.NO_COLOR
}

/**
 * Clipanion writes an option's value as `#0` in usage (`--port #0`) and has no setting for it;
 * name the value after its flag instead (`--port <port>`).
 */
class SvcCli extends Cli {
  override usage(...args: Parameters<Cli['usage']>): string {
    return alignOptionRows(super.usage(...args).replace(/(--([\w-]+)) #0/g, '$1 <$2>'))
  }
}

/** The rows of an Options list (`  --flag <value>   description`, bold on a terminal) padded to one column again. */
function alignOptionRows(text: string): string {
  // eslint-disable-next-line no-control-regex -- the bold on and off codes clipanion writes around the flag
  const row = /^ {2}(\x1b\[1m)?(-\S*?(?: <[\w-]+>)?(?:,-\S+)*) *(\x1b\[22m)? +(\S.*)$/
  const lines = text.split('\n')
  const width = Math.max(0, ...lines.map((l) => row.exec(l)?.[2]!.length ?? 0))
  return lines
    .map((l) => l.replace(row, (_, on: string | undefined, flag: string, off: string | undefined, rest: string) => `  ${on ?? ''}${flag.padEnd(width)}${off ?? ''}    ${rest}`))
    .join('\n')
}

const cli = new SvcCli({ binaryLabel: 'svc', binaryName: 'svc', binaryVersion: '0.1.0', enableCapture: false, enableColors: colours(process.stdout) })
for (const command of [RunCommand, DevCommand, WorkbenchCommand, ...COMMANDS, Builtins.HelpCommand, Builtins.VersionCommand]) {
  cli.register(command)
}

/**
 * Clipanion answers a bad flag after a positional target with "Command not found" and lists the
 * command's whole usage as candidates; name the flag (unknown, with the closest real one, or
 * missing its value) and the command's help instead. `specific`: the message says what is wrong,
 * so clipanion's own is left out.
 */
function flagProblem(argv: string[]): { message: string; specific: boolean } | null {
  const command = cli
    .definitions()
    .map((d) => ({ d, words: d.path.split(' ').slice(1) }))
    .filter(({ words }) => words.length > 0 && words.every((w, i) => argv[i] === w))
    .sort((a, b) => b.words.length - a.words.length)[0]
  if (!command) return null
  const name = `svc ${command.words.join(' ')}`
  const flags = new Map<string, boolean>()
  for (const o of command.d.options) {
    for (const token of o.definition.split(/[ ,]+/)) if (token.startsWith('-')) flags.set(token, o.definition.includes('#0'))
  }
  flags.set('--help', false).set('-h', false)
  const args = argv.slice(command.words.length)
  const unknown = args.find((a) => a.startsWith('-') && a !== '-' && !flags.has(a.split('=')[0]!))
  if (unknown !== undefined) {
    const near = closestName(unknown.split('=')[0]!, [...flags.keys()].filter((f) => f.startsWith('--')))
    const hint = near === null ? '' : ` (did you mean "${near}"?)`
    return { message: `unknown flag ${JSON.stringify(unknown)} for "${name}"${hint}; see "${name} --help" for its flags`, specific: true }
  }
  const last = args.at(-1)
  if (last !== undefined && flags.get(last) === true) return { message: `flag ${last} needs a value, e.g. "${last} <value>"; see "${name} --help"`, specific: true }
  return { message: `see "${name} --help" for its flags`, specific: false }
}

async function main(argv: string[]): Promise<number> {
  let command
  try {
    command = cli.process(argv)
  } catch (err) {
    // Unknown command, unknown flag, missing value: a usage error is exit 2.
    const problem = flagProblem(argv)
    if (!problem?.specific) process.stderr.write(cli.error(err, { colored: colours(process.stderr) }))
    process.stderr.write(`svc: ${problem?.message ?? 'see "svc --help" for the commands and "svc <command> --help" for their flags'}\n`)
    return EXIT.USAGE
  }
  return cli.run(command)
}

process.exitCode = await main(process.argv.slice(2))
