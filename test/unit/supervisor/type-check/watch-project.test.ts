import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as TS from 'typescript'
import { afterEach, describe, expect, it } from 'vitest'
import { watchProject } from '../../../../supervisor/type-check/watch-project.js'
import type { TypeCheckReport } from '../../../../ipc/messages.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** TypeScript's own watch program over a project of `files`: its first report. */
async function firstReport(files: Record<string, string>): Promise<TypeCheckReport> {
  // As the checker child loads it (checker-main.ts): TypeScript is CommonJS, its API the default export.
  const ts = ((await import('typescript')) as unknown as { default: typeof TS }).default
  const cwd = mkdtempSync(join(tmpdir(), 'svc-watch-project-'))
  dirs.push(cwd)
  writeFileSync(join(cwd, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', target: 'es2022', types: [] }, include: ['*.ts'] }))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, name), text)
  let watch: { close(): void } | null = null
  const report = await new Promise<TypeCheckReport>((resolve) => {
    watch = watchProject(ts, { tsconfig: join(cwd, 'tsconfig.json'), buildInfo: join(cwd, 'build.tsbuildinfo'), cwd, onReport: resolve })
  })
  watch!.close()
  return report
}

describe('watchProject', () => {
  it('a file that does not parse reports its syntax errors, marked, and none of the type errors that follow from them', async () => {
    const report = await firstReport({
      'app.ts': "export const n: number = 1\nconsole.log(Math.max(n, 'x'\nexport const s: string = n\n",
      'other.ts': 'export const t: string = 2\n',
    })
    const app = report.errors.filter((e) => e.file === 'app.ts')
    expect(app.length).toBeGreaterThan(0)
    expect(app.every((e) => e.syntax === true && /^TS1\d{3}$/.test(e.code)), JSON.stringify(app)).toBe(true)
    // A file that parses still gets its type errors, not marked as syntax.
    expect(report.errors.filter((e) => e.file === 'other.ts').map((e) => [e.code, e.syntax])).toEqual([['TS2322', undefined]])
    expect(report.total).toBe(report.errors.length)
  })
})
