import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DockerfileParser, type Instruction } from 'dockerfile-ast'
import { REPO } from '../../helpers/svc-process.js'

/** The rules deploy/Dockerfile relies on, checked on its parsed instructions (no container engine here). */
const TEXT = readFileSync(`${REPO}deploy/Dockerfile`, 'utf8')
const dockerfile = DockerfileParser.parse(TEXT)
const instructions = dockerfile.getInstructions()
const froms = dockerfile.getFROMs()
const finalStart = froms.at(-1)!.getRange().start.line
/** Instructions of the final (runtime) stage. */
const final = instructions.filter((i) => i.getRange().start.line >= finalStart)
const inFinal = (keyword: string): Instruction[] => final.filter((i) => i.getKeyword() === keyword)
const args = (i: Instruction): string => i.getArgumentsContent() ?? ''
/** `--from=build` and the like (not part of the arguments). */
const flags = (i: Instruction): string[] =>
  (i as unknown as { getFlags(): { getName(): string; getValue(): string | null }[] }).getFlags().map((f) => `--${f.getName()}=${f.getValue()}`)
/** `["a", "b"]` exec form, as the JSON array it is. */
const execForm = (text: string): string[] => JSON.parse(text) as string[]
const DEV_TOOLS = /\b(curl|wget|git|build-essential|gcc|g\+\+|make|python3?)\b/

describe('deploy/Dockerfile', () => {
  it('is multi-stage: a build stage, then a runtime stage from the same Node image', () => {
    expect(froms.map((f) => f.getBuildStage())).toEqual(['build', 'runtime'])
    const arg = dockerfile.getARGs().find((a) => a.getProperty()?.getName() === 'NODE_IMAGE')
    expect(arg?.getProperty()?.getValue()).toMatch(/^node:24-bookworm-slim$/)
    for (const f of froms) expect(args(f)).toMatch(/^\$\{NODE_IMAGE\} AS /)
  })

  it('runtime stage: production dependencies only, nothing copied from the build stage but dist/', () => {
    const runs = inFinal('RUN').map(args)
    const npm = runs.filter((r) => /\bnpm\b/.test(r))
    expect(npm.some((r) => /\bnpm ci\b.*--omit=dev/.test(r))).toBe(true)
    for (const r of npm) {
      expect(r).not.toMatch(/npm (install|i)\b/)
      expect(r).not.toMatch(/--include=dev|--production=false/)
    }
    const fromBuild = inFinal('COPY').filter((c) => flags(c).length > 0)
    expect(fromBuild.map((c) => [...flags(c), args(c)].join(' '))).toEqual(['--from=build /src/dist ./dist'])
    for (const r of runs) expect(r.replace(/--no-install-recommends tini/, '')).not.toMatch(DEV_TOOLS)
  })

  it('installs tini and makes it PID 1 in the ENTRYPOINT (exec form), running bin/svc.js', () => {
    expect(inFinal('RUN').map(args).some((r) => /apt-get install -y --no-install-recommends tini\b/.test(r))).toBe(true)
    const entry = inFinal('ENTRYPOINT')
    expect(entry).toHaveLength(1)
    expect(execForm(args(entry[0]!))).toEqual(['/usr/bin/tini', '--', 'node', 'bin/svc.js'])
    expect(execForm(args(inFinal('CMD')[0]!))[0]).toBe('run')
  })

  it('runs as a non-root user, set after the last RUN', () => {
    const users = inFinal('USER')
    expect(users.length).toBeGreaterThan(0)
    const user = users.at(-1)!
    expect(args(user)).not.toMatch(/^(root|0)(:|$)/)
    const lastRun = inFinal('RUN').at(-1)!.getRange().start.line
    expect(user.getRange().start.line).toBeGreaterThan(lastRun)
  })

  it('STOPSIGNAL SIGTERM and a HEALTHCHECK on healthz with node (no curl in the image)', () => {
    expect(inFinal('STOPSIGNAL').map(args)).toEqual(['SIGTERM'])
    const health = inFinal('HEALTHCHECK')
    expect(health).toHaveLength(1)
    const text = args(health[0]!)
    const cmd = execForm(text.slice(text.indexOf('CMD') + 3).trim())
    expect(cmd[0]).toBe('node')
    const script = readFileSync(`${REPO}${cmd[1]}`, 'utf8')
    expect(script).toContain('/healthz')
    expect(inFinal('COPY').map(args)).toContain(`${cmd[1]} ./${cmd[1]}`)
  })

  it('binds all interfaces on the EXPOSEd port, without a pid file', () => {
    const env = inFinal('ENV').flatMap((e) => (e as unknown as { getProperties(): { getName(): string; getValue(): string }[] }).getProperties())
    const value = (name: string): string | undefined => env.find((p) => p.getName() === name)?.getValue()
    expect(value('SVC_GATEWAY_HOST')).toBe('0.0.0.0')
    expect(inFinal('EXPOSE').map(args)).toEqual([value('SVC_GATEWAY_PORT')])
    expect(value('SVC_NO_PIDFILE')).toBe('1')
  })

  it('every COPY source exists and is not excluded by .dockerignore', () => {
    const ignore = readFileSync(`${REPO}.dockerignore`, 'utf8').split('\n').filter((l) => l && !l.startsWith('#'))
    expect(ignore).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git']))
    const sources = instructions
      .filter((i) => i.getKeyword() === 'COPY' && flags(i).length === 0)
      .flatMap((i) => args(i).split(/\s+/).slice(0, -1))
      .filter((s) => s !== '.')
    expect(sources.length).toBeGreaterThan(3)
    for (const s of sources) {
      expect(existsSync(`${REPO}${s}`), s).toBe(true)
      expect(ignore.some((p) => s === p || s.startsWith(`${p}/`)), `${s} is in .dockerignore`).toBe(false)
    }
  })
})
