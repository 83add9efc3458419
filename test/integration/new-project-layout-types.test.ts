import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { linkedNewProject, sh, userEnv } from '../helpers/fresh-project.js'

/**
 * Issue #22.7: `const [left, right] = st.columns(2)` (the docs' own example) typechecks in a
 * project made by `svc new`, whose tsconfig has `noUncheckedIndexedAccess`. The project's
 * dependencies are links to this repository's (no install), so the check is `tsc` on the
 * template's own tsconfig against svc's built types (dist/), as `npm run typecheck` runs it.
 */
describe('layout types in a project made by svc new', () => {
  let work: string
  let project: string

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'svc-types-'))
    project = await linkedNewProject(work)
  })

  afterAll(async () => {
    await rm(work, { recursive: true, force: true })
  })

  it('columns and tabs destructure without `!` under noUncheckedIndexedAccess', async () => {
    await writeFile(
      join(project, 'layout.ts'),
      [
        "import { Svc } from 'svc'",
        '',
        "export const app = new Svc({ title: 'Layout' })",
        '',
        "app.page('/', (st) => {",
        '  const [left, right] = st.columns(2)',
        "  left.metric('Revenue', 1200)",
        "  right.metric('Orders', 31)",
        "  const [wide, narrow] = st.columns([2, 1], { gap: 'large' })",
        "  wide.text('wide')",
        "  narrow.text('narrow')",
        "  const [chart, table] = st.tabs(['Chart', 'Table'])",
        "  chart.text('chart')",
        "  table.text('table')",
        '})',
        '',
      ].join('\n'),
    )
    const out = await sh(`node ${join(project, 'node_modules', 'typescript', 'bin', 'tsc')} --noEmit -p .`, project, userEnv(), 90_000)
    expect(out).not.toMatch(/error TS/)
  }, 100_000)
})
