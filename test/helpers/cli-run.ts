import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'
import { REPO, SVC_BIN } from './svc-process.js'

/** The fixture app most CLI tests import (through `svc`, i.e. the built dist/). */
export const BASIC_APP = `${REPO}test/fixtures/app-basic.ts:app`

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** The environment of this test process minus every svc setting, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('SVC_') && k !== 'PUBLIC_BASE_URL') env[k] = v
  }
  return { ...env, ...extra }
}

/** Run `node bin/svc.js ...args` to completion (the built CLI, as users run it). */
export function runSvcCli(args: string[], opts: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<CliResult> {
  if (!existsSync(`${REPO}dist/src/cli/main.js`)) {
    throw new Error('dist/ is missing: run "npx tsc -p tsconfig.build.json" before the CLI integration tests')
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], { cwd: opts.cwd, env: cleanEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`svc ${args.join(' ')} did not finish within ${opts.timeoutMs ?? 20_000} ms; stderr:\n${stderr}`))
    }, opts.timeoutMs ?? 20_000)
    child.once('error', reject)
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** A fresh temp directory, removed when the test finishes. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  onTestFinished(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** Write `<dir>/app.ts` (an ES module importing the built svc) with `body` after `new Svc()`; returns the target. */
export async function writeTempApp(dir: string, body = ''): Promise<string> {
  await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n')
  const svc = JSON.stringify(`${REPO}dist/src/app.js`)
  await writeFile(join(dir, 'app.ts'), `import { Svc } from ${svc}\nexport const app = new Svc({ title: 'Temp' })\n${body}\n`)
  return 'app.ts:app'
}
