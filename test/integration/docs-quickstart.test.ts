import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packSvc, sh, startServer, userEnv } from '../helpers/fresh-project.js'
import { REPO } from '../helpers/svc-process.js'
import { docBlocks, type DocBlock } from '../helpers/doc-blocks.js'

/**
 * docs/quickstart.md as a user follows it: its blocks run in order in a temp folder, with svc
 * packed from this checkout. The info strings say what each block is (the convention is in the
 * comment at the top of quickstart.md); a block the test does not understand fails it.
 */
const DOC = 'docs/quickstart.md'
const PLACEHOLDER = '/path/to/svc'
const STEP_MS = 150_000

type Step =
  | { kind: 'file'; path: string }
  | { kind: 'sh'; fresh: boolean }
  | { kind: 'server'; fetch: string[] }
  | { kind: 'skip' }

function stepOf(block: DocBlock): Step {
  if (block.lang === '' || block.attrs.norun === true) return { kind: 'skip' }
  if (typeof block.attrs.file === 'string') return { kind: 'file', path: block.attrs.file }
  if (block.lang === 'sh' && block.attrs.server === true) {
    if (typeof block.attrs.fetch !== 'string') throw new Error(`${DOC}:${block.line}: a server block needs fetch=/path,...`)
    return { kind: 'server', fetch: block.attrs.fetch.split(',') }
  }
  if (block.lang === 'sh') return { kind: 'sh', fresh: block.attrs.fresh === true }
  throw new Error(`${DOC}:${block.line}: a \`\`\`${block.lang} block needs file=<path> or norun (see the comment at the top of ${DOC})`)
}

const blocks = docBlocks(REPO, DOC)
const steps = blocks.map((block) => ({ block, step: stepOf(block) })).filter(({ step }) => step.kind !== 'skip')

describe(`${DOC} runs as written`, () => {
  let work: string
  let packDir: string
  let cwd: string
  let failed: string | null = null
  const env = userEnv({ npm_config_prefer_offline: 'true' })

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'svc-docs-'))
    packDir = join(work, 'pack')
    await sh(`mkdir -p ${packDir}`, work)
    await packSvc(packDir)
    cwd = work
  }, 60_000)

  afterAll(() => rm(work, { recursive: true, force: true }))

  it('has runnable steps: files, commands and servers', () => {
    const kinds = new Set(steps.map(({ step }) => step.kind))
    expect([...kinds].sort()).toEqual(['file', 'server', 'sh'])
  })

  for (const { block, step } of steps) {
    const title = `${DOC}:${block.line} ${step.kind === 'file' ? `file ${step.path}` : block.body.split('\n')[0]}`
    it(title, async (ctx) => {
      if (failed !== null) ctx.skip(`an earlier step failed (${failed})`)
      try {
        await runStep(block, step)
      } catch (err) {
        failed = title
        throw err
      }
    }, STEP_MS)
  }

  async function runStep(block: DocBlock, step: Step): Promise<void> {
    const body = block.body.replaceAll(PLACEHOLDER, packDir)
    switch (step.kind) {
      case 'file':
        await writeFile(join(cwd, step.path), block.body)
        return
      case 'sh': {
        if (step.fresh) cwd = await mkdtemp(join(work, 'step-'))
        // `cd` in a block carries over: the block ends by saying where it is.
        const out = await sh(`${body}\nprintf '\\n@cwd=%s\\n' "$PWD"`, cwd, env, STEP_MS)
        cwd = [...out.matchAll(/^@cwd=(.*)$/gm)].at(-1)![1]!
        return
      }
      case 'server': {
        const server = await startServer(body.replace(/--port \d+/g, '--port 0'), cwd, { ...env, SVC_GATEWAY_PORT: '0' })
        try {
          for (const path of step.fetch) {
            const res = await fetch(server.origin.replace('//0.0.0.0:', '//127.0.0.1:') + path)
            expect(res.status, `GET ${path} from \`${body.trim()}\` (${DOC}:${block.line})\n${server.output()}`).toBe(200)
          }
        } finally {
          await server.stop()
        }
        return
      }
      case 'skip':
        return
    }
  }
})
