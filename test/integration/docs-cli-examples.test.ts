import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runSvcCli, tempDir } from '../helpers/cli-run.js'
import { REPO } from '../helpers/svc-process.js'

/**
 * The terminal examples of docs/cli.md are what the CLI prints: every `$ svc …` line of the
 * usage-error and load-error blocks is run in a folder with the app they name, and its stderr
 * must be the lines the docs show under it; `$ echo $?` is the exit code of the command before.
 */
interface Example {
  command: string[]
  output: string[]
  code: number | null
}

/** The `$`-prefixed commands of the fenced blocks that follow `marker`, with the lines each prints. */
function examplesAfter(doc: string, marker: string): Example[] {
  const from = doc.indexOf(marker)
  expect(from, `docs/cli.md has no "${marker}"`).toBeGreaterThan(-1)
  const block = /```\n([\s\S]*?)```/.exec(doc.slice(from))![1]!
  const examples: Example[] = []
  const lines = block.split('\n').filter((l) => l !== '')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line === '$ echo $?') examples.at(-1)!.code = Number(lines[++i])
    else if (line.startsWith('$ ')) examples.push({ command: line.slice(2).split(' '), output: [], code: null })
    else examples.at(-1)?.output.push(line)
  }
  return examples
}

async function projectWith(files: Record<string, string>): Promise<string> {
  const dir = await tempDir('svc-docs-cli-')
  await mkdir(join(dir, 'node_modules'), { recursive: true })
  await symlink(REPO.replace(/\/$/, ''), join(dir, 'node_modules', 'svc'))
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text)
  return dir
}

describe('docs/cli.md examples', () => {
  it('the usage errors are printed as shown, with exit 2', { timeout: 60_000 }, async () => {
    const doc = await readFile(`${REPO}docs/cli.md`, 'utf8')
    const examples = examplesAfter(doc, 'A usage error names the bad value and the fix')
    expect(examples.map((e) => e.command.slice(0, 2).join(' '))).toEqual(['svc dev', 'svc run', 'svc run'])
    const cwd = await projectWith({ 'app.ts': "import { Svc } from 'svc'\nexport const app = new Svc({ title: 'Docs' })\n" })
    for (const example of examples) {
      const res = await runSvcCli(example.command.slice(1), { cwd })
      expect(res.stderr.trimEnd().split('\n'), example.command.join(' ')).toEqual(example.output)
      expect(res.code).toBe(2)
    }
    expect(examples.at(-1)!.code).toBe(2)
  })

  it('the load error of a broken module is printed as shown', { timeout: 60_000 }, async () => {
    const doc = await readFile(`${REPO}docs/cli.md`, 'utf8')
    const [example] = examplesAfter(doc, 'A module that cannot load stops')
    // The module the example describes: lib.ts, line 3, column 14 holds the second comma.
    const cwd = await projectWith({
      'app.ts': "import { Svc } from 'svc'\nimport { options } from './lib.js'\nexport const app = new Svc(options)\n",
      'lib.ts': "export const options = {\n  debug: false,\n  title: 'x',,\n}\n",
      'package.json': '{ "type": "module" }\n',
    })
    const res = await runSvcCli([...example!.command.slice(1), '--no-pidfile', '--log-format', 'pretty'], { cwd })
    expect(res.code).toBe(2)
    expect(res.stderr.trimEnd().split('\n')).toEqual(example!.output)
  })
})
