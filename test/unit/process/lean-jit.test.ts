import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const LEAN_JIT = fileURLToPath(new URL('../../../src/process/lean-jit.ts', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'svc-lean-jit-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Whether TurboFan is on, asked of V8 itself. */
const TURBOFAN = `(require('node:v8').setFlagsFromString('--allow-natives-syntax'), new Function('return %IsTurbofanEnabled()'))`

describe('keepJitLean', () => {
  it('turns the optimising compilers off in this process only: a child forked with its execArgv, as the supervisor forks, keeps them', () => {
    // A process of its own: the flags are process-wide.
    const child = join(dir, 'child.cjs')
    writeFileSync(child, `process.send(${TURBOFAN}())`)
    const main = join(dir, 'main.mts')
    writeFileSync(
      main,
      `import { createRequire } from 'node:module'
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { keepJitLean } from ${JSON.stringify(LEAN_JIT)}
const require = createRequire(import.meta.url)
const turbofan = ${TURBOFAN}
const before = turbofan()
keepJitLean()
const after = turbofan()
const [inChild] = await once(fork(${JSON.stringify(child)}, [], { execArgv: process.execArgv }), 'message')
console.log(JSON.stringify({ before, after, inChild }))
`,
    )
    const out = execFileSync(process.execPath, ['--import', 'tsx', main], { encoding: 'utf8' })
    expect(JSON.parse(out)).toEqual({ before: true, after: false, inChild: true })
  })
})
