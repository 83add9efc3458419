import { readdirSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPO } from '../helpers/svc-process.js'
import { linkedNewProject } from '../helpers/fresh-project.js'
import { docBlocks, type DocBlock } from '../helpers/doc-blocks.js'
import { checkDocBlocks, docHidden, isTypeScriptBlock, type DocsCheck } from '../helpers/doc-typecheck.js'

/**
 * Issue #33.4: every TypeScript block of README.md and docs/ compiles against svc as a user
 * imports it (`from 'svc'`), in a project made by `svc new` (its tsconfig: strict,
 * noUncheckedIndexedAccess). One TypeScript program for all blocks. The convention for snippets
 * is in docs/README.md ("Code blocks") and test/helpers/doc-typecheck.ts.
 */
const DOCS = ['README.md', ...readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]
/** Packages the docs import besides svc and the template's (a user installs them when a doc says so). */
const DOC_PACKAGES = ['typescript', 'vitest', '@types/node', '@opentelemetry/api', 'jose', 'prom-client']

describe('the TypeScript blocks of the docs', () => {
  let work: string
  let check: DocsCheck
  let broken: DocBlock[]

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'svc-docs-'))
    const project = await linkedNewProject(work, DOC_PACKAGES)
    const blocks = DOCS.flatMap((doc) => docBlocks(REPO, doc)).filter(isTypeScriptBlock)
    // The pages.md data-editor example with a key misspelt, twice: the same program must fail on them.
    const example = blocks.find((b) => b.doc === 'docs/pages.md' && b.body.includes('st.dataEditor(todo'))!
    broken = [
      { ...example, line: -1, body: example.body.replace('n + t.hours', 'n + t.hour') },
      { ...example, line: -2, body: example.body.replace('    hours: columnConfig', '    hour: columnConfig') },
    ]
    const hidden = new Map(DOCS.map((doc) => [doc, docHidden(REPO, doc)]))
    check = checkDocBlocks(project, [...blocks, ...broken], hidden)
  }, 120_000)

  afterAll(async () => {
    await rm(work, { recursive: true, force: true })
  })

  it('all compile', () => {
    const problems = [...check.problems.entries()].filter(([key]) => !key.endsWith(':-1') && !key.endsWith(':-2')).flatMap(([, p]) => p)
    expect(check.blocks).toBeGreaterThan(60)
    expect(problems.map((p) => `${p.at} ${p.code} ${p.message}`).join('\n')).toBe('')
  })

  it('a misspelt key in the data-editor example fails, at its line', () => {
    const [hour] = check.problems.get('docs/pages.md:-1')!
    expect(check.problems.get('docs/pages.md:-1')).toHaveLength(1)
    expect(hour).toMatchObject({ code: 'TS2551' })
    expect(hour!.message).toMatch(/Property 'hour' does not exist .* Did you mean 'hours'\?/)
    const [config] = check.problems.get('docs/pages.md:-2')!
    expect(check.problems.get('docs/pages.md:-2')).toHaveLength(1)
    expect(config).toMatchObject({ code: 'TS2561' })
    expect(broken).toHaveLength(2)
  })
})
