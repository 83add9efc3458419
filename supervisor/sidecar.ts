import { fork, type StdioOptions } from 'node:child_process'
import type { Readable } from 'node:stream'
import { EventEmitter, once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { setTimeout as delay } from 'node:timers/promises'
import { http } from '../src/internal/node-http.js'
import type { Logger } from 'pino'
import { SvcError, svcErrorFromData } from '../src/errors.js'
import { SidecarToSupervisor, SupervisorToSidecar, type AppProfile, type PageServerStats, type TypeCheckReport } from '../ipc/messages.js'
import { processChannel, type Channel } from '../ipc/channel.js'
import { signalGroup, killTree } from '../src/process/kill-tree.js'
import { childEnv } from '../src/process/child-env.js'
import { ComposedLifecycle } from '../src/internal/lifecycle.js'
import { GUARD_EXTRA_MS, SIDECAR_STOP_GRACE_MS } from '../src/internal/deadlines.js'
import type { ReservedPort } from './bind.js'
import { childExecArgv } from './child-exec-argv.js'
import { PendingAnswers } from './pending-answers.js'

/**
 * The ui sidecar, owned by the supervisor: the bundled page server (forked with an IPC channel,
 * so it exits when the supervisor vanishes) or the user's `ui_command` under the sidecar guard.
 * Started as its own process group with its own tree cookie (`src/process/kill-tree.ts`); stopped
 * with SIGTERM, SIGKILL of the tree after the grace; whatever it leaves behind when it exits
 * (a guard killed with SIGKILL, a helper in its own session) is killed before `exit` is emitted.
 */
export interface SidecarSpec {
  /** `bundled`: node <uiMainPath()>; `command`: the user's ui_command (placeholders filled). */
  kind: 'bundled' | 'command'
  script: string
  argv: string[]
  env: NodeJS.ProcessEnv
  /** Full URL polled until the sidecar answers. */
  healthUrl: string
  port: number
  /** The bundled server's socket, bound by the supervisor and inherited (`supervisor/bind.ts`). */
  listenSocket?: ReservedPort
  /** Where its standard output goes (`log_file`); the supervisor's own when absent. */
  stdout?: (stream: Readable) => void
}

/** The child's fd for `listenSocket`: the stdio entry after the IPC channel. */
const LISTEN_FD = 4

export interface SidecarExit {
  code: number | null
  signal: string | null
}

const HEALTH_POLL_MS = 50
const HEALTH_REQUEST_TIMEOUT_MS = 1_000

export const GUARD_PATH = fileURLToPath(new URL('./sidecar-guard.js', import.meta.url))

/**
 * The process under a Sidecar: forked by `forkSidecar`, or in the supervisor's unit tests an
 * in-memory fake over `ipc/memory-channel.ts`.
 */
export interface SidecarProcess {
  readonly pid: number | null
  /** What the bundled server or the guard reports; `reload` goes to the bundled server only. */
  readonly channel: Channel<SidecarToSupervisor, SupervisorToSidecar>
  /** It exited (the Sidecar then ends what it left behind with `kill`). */
  onExit(listener: (code: number | null, signal: string | null) => void): void
  /** Ask it to stop: the guard passes SIGTERM to the command's whole tree, the bundled server gets it as a group. */
  terminate(): void
  /** SIGKILL the tree rooted at `pid` (default: this process) together with everything carrying its cookie. */
  kill(pid?: number): Promise<void>
  /** One request to the health URL: its status, or a rejection (connection refused, timeout). */
  health(): Promise<number>
}

export type SidecarLauncher = (spec: SidecarSpec, cookie: string | null, logger: Logger) => SidecarProcess

/** Fork the bundled page server, or the guard that runs the `ui_command`, as its own process group. */
export const forkSidecar: SidecarLauncher = (spec, cookie, logger) => {
  const socket = spec.listenSocket
  const env = { ...spec.env, ...childEnv({ treeId: cookie ?? undefined, uiListenFd: socket ? LISTEN_FD : undefined }) }
  let child
  try {
    const stdio: StdioOptions = ['ignore', spec.stdout ? 'pipe' : 'inherit', 'inherit', 'ipc', ...(socket ? [socket.listenFd()] : [])]
    child =
      spec.kind === 'bundled'
        ? fork(spec.script, [], { env, execArgv: childExecArgv(env), detached: true, stdio })
        : fork(GUARD_PATH, [JSON.stringify(spec.argv)], { env, detached: true, stdio })
  } finally {
    socket?.release()
  }
  child.on('error', () => {})
  if (spec.stdout && child.stdout) spec.stdout(child.stdout)
  const pid = child.pid ?? null
  return {
    pid,
    channel: processChannel(child, { incoming: SidecarToSupervisor, outgoing: SupervisorToSidecar }, logger, `ui sidecar ${pid}`),
    onExit: (listener) => child.once('exit', listener),
    terminate: () => {
      if (pid === null) return
      if (spec.kind === 'command') process.kill(pid, 'SIGTERM')
      else signalGroup(pid, 'SIGTERM')
    },
    kill: async (root = pid ?? undefined) => {
      await killTree({ pid: root ?? null, cookie })
    },
    health: () => httpStatus(spec.healthUrl, HEALTH_REQUEST_TIMEOUT_MS),
  }
}

/** The bundled page server's answer to `reload`: the new code is loaded beside the running one (commit it by `id`), or why it did not load. */
export type PagesReloadAnswer = { ok: true; id: number; ms: number } | { ok: false; summary: string }

/** The answer to a reload's commit: the open pages that moved to the new code; null when it did not answer. */
export type PagesCommitAnswer = { moved: number; ms: number } | null

export class Sidecar extends EventEmitter<{ exit: [SidecarExit] }> {
  readonly spec: SidecarSpec
  /** When `start` forked it. */
  startedAt = new Date()
  readonly #launch: SidecarLauncher
  #proc: SidecarProcess | null = null
  #exit: SidecarExit | null = null
  #reported: SidecarExit | null = null
  /** The bundled sidecar's own account of a failed start. */
  #fatal: { code: string; message: string } | null = null
  /** The ui_command's own pid (group leader), as the guard reported it. */
  #commandPid: number | null = null
  /** Where the sidecar's malformed messages and a stop past its grace are reported (set by `start`). */
  #logger: Logger | null = null
  readonly #lifecycle = new ComposedLifecycle({ drain: () => this.#stop(), abort: () => this.#kill() })
  #reloadIds = 0
  /** `reload` requests sent and not answered yet. */
  readonly #reloads = new PendingAnswers<PagesReloadAnswer>()
  /** `reload_commit`s sent and not answered yet. */
  readonly #commits = new PendingAnswers<PagesCommitAnswer>()
  /** `stats_request`s sent and not answered yet. */
  readonly #stats = new PendingAnswers<PageServerStats | null>()

  /** `cookie`: this sidecar's `SVC_TREE_ID`, inherited by everything it starts. */
  readonly #cookie: string | null

  constructor(spec: SidecarSpec, cookie: string | null = null, launch: SidecarLauncher = forkSidecar) {
    super()
    this.spec = spec
    this.#cookie = cookie
    this.#launch = launch
  }

  get pid(): number | null {
    return this.#proc?.pid ?? null
  }

  get url(): string {
    return `http://127.0.0.1:${this.spec.port}`
  }

  get exited(): SidecarExit | null {
    return this.#exit
  }

  /**
   * `logger`: where a malformed message from the sidecar is reported. `profile`: the app the
   * bundled page server serves (its first message); a `ui_command` sidecar is told nothing.
   */
  start(logger: Logger, profile: AppProfile): void {
    this.#logger = logger
    this.startedAt = new Date()
    const proc = this.#launch(this.spec, this.#cookie, logger)
    this.#proc = proc
    if (this.spec.kind === 'bundled') proc.channel.send({ svc: 1, type: 'configure', profile })
    proc.channel.onMessage((msg) => {
      switch (msg.type) {
        case 'child_started':
          this.#commandPid = msg.pid
          return
        case 'fatal':
          this.#fatal = { code: msg.code, message: msg.message }
          return
        case 'reload_ready':
          this.#reloads.settle(msg.id, { ok: true, id: msg.id, ms: msg.ms })
          return
        case 'reloaded':
          this.#commits.settle(msg.id, { moved: msg.moved, ms: msg.ms })
          return
        case 'reload_failed':
          this.#reloads.settle(msg.id, { ok: false, summary: msg.summary })
          this.#commits.settle(msg.id, null)
          return
        case 'stats':
          this.#stats.settle(msg.id, msg.stats)
          return
        case 'child_exit':
          this.#reported = { code: msg.code, signal: msg.signal }
          return
        default:
          msg satisfies never
      }
    })
    proc.onExit((code, signal) => {
      // A guard that died without cleaning up (SIGKILL) would orphan the command's tree.
      void proc.kill(this.#commandPid ?? undefined).then(() => {
        this.#exit = this.#reported ?? { code, signal }
        this.#reloads.settleAll({ ok: false, summary: `the ui sidecar exited (${describeExit(this.#exit)})` })
        this.#commits.settleAll(null)
        this.#stats.settleAll(null)
        this.emit('exit', this.#exit)
      })
    })
  }

  /**
   * Ask the bundled page server to load the app again beside the running code and wait for its
   * answer (null: a `ui_command` sidecar, which is never told). Not answered within `timeoutMs`:
   * a failure. Its sessions stay on the running code until `commitPages` (or `abortPages`).
   */
  reloadPages(timeoutMs: number): Promise<PagesReloadAnswer> | null {
    const proc = this.#proc
    if (this.spec.kind !== 'bundled' || !proc) return null
    const id = ++this.#reloadIds
    return this.#reloads.wait(
      id,
      timeoutMs,
      () => !this.#exit && proc.channel.send({ svc: 1, type: 'reload', id }),
      (why) => ({ ok: false, summary: why === 'timeout' ? `the ui sidecar did not reload within ${Math.round(timeoutMs / 1000)} s` : 'the ui sidecar is gone' }),
    )
  }

  /**
   * The new gateway workers serve: the page server's sessions move to the code `reloadPages`
   * loaded and rerun there, so what they show of the API is the new code's.
   */
  commitPages(id: number, timeoutMs: number): Promise<PagesCommitAnswer> {
    const proc = this.#proc
    if (this.spec.kind !== 'bundled' || !proc || this.#exit) return Promise.resolve(null)
    return this.#commits.wait(id, timeoutMs, () => proc.channel.send({ svc: 1, type: 'reload_commit', id }), () => null)
  }

  /** The reload failed elsewhere: the page server drops the code `reloadPages` loaded. */
  abortPages(id: number): void {
    this.tell({ svc: 1, type: 'reload_abort', id })
  }

  /** Send the bundled page server a message; a `ui_command` sidecar (or a gone one) is never told. */
  tell(msg: SupervisorToSidecar): void {
    if (this.spec.kind === 'bundled' && this.#proc && !this.#exit) this.#proc.channel.send(msg)
  }

  /** `svc dev`'s type check: the bundled page server shows the errors in its open tabs. */
  showTypeErrors(report: TypeCheckReport): void {
    this.tell({ svc: 1, type: 'type_errors', errors: report.errors, total: report.total })
  }

  /**
   * The bundled page server's account of its sessions and threads (their CPU over `windowMs`);
   * null for a `ui_command` sidecar, or when it does not answer within `timeoutMs` after the window.
   */
  stats(timeoutMs: number, windowMs: number): Promise<PageServerStats | null> {
    const proc = this.#proc
    if (this.spec.kind !== 'bundled' || !proc || this.#exit) return Promise.resolve(null)
    const id = ++this.#reloadIds
    return this.#stats.wait(id, timeoutMs + windowMs, () => proc.channel.send({ svc: 1, type: 'stats_request', id, window_ms: windowMs }), () => null)
  }

  /** The ui_command's own pid (the guard reported it), or null. */
  get commandPid(): number | null {
    return this.#commandPid
  }

  /** Poll the health URL until it answers (any status below 500), the child exits, or the deadline. */
  async waitHealthy(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const deadline = Date.now() + timeoutMs
    const exited = once(this, 'exit', signal ? { signal } : {})
    let lastError = 'no answer yet'
    while (Date.now() < deadline) {
      if (this.#exit) break
      try {
        const status = await this.#proc!.health()
        if (status < 500) return
        lastError = `answered ${status}`
      } catch (err) {
        lastError = (err as NodeJS.ErrnoException).code ?? (err as Error).message
      }
      await Promise.race([delay(HEALTH_POLL_MS, undefined, signal ? { signal } : {}), exited])
    }
    exited.catch(() => {})
    if (this.#exit) {
      if (this.#fatal) throw svcErrorFromData(this.#fatal)
      throw new SvcError('SVC_ERR_PROCESS_SIDECAR_START', `the ui sidecar exited during start-up (${describeExit(this.#exit)})`)
    }
    throw new SvcError(
      'SVC_ERR_PROCESS_SIDECAR_START',
      `the ui sidecar did not answer ${this.spec.healthUrl} within ${Math.round(timeoutMs / 1000)} s (${lastError}); check ui_command / ui_health_path or raise ui_startup_timeout_s`,
    )
  }

  /** SIGTERM to the group, SIGKILL of the tree after the grace. Same promise on repeat. */
  close(): Promise<void> {
    return this.#lifecycle.close()
  }

  /** SIGKILL the sidecar's tree now (cutting a close's grace short); resolves once it exited. Same promise on repeat. */
  destroy(): Promise<void> {
    return this.#lifecycle.destroy()
  }

  async #kill(): Promise<void> {
    const proc = this.#proc
    if (!proc || proc.pid === null || this.#exit) return
    const exited = once(this, 'exit')
    void proc.kill()
    await exited
  }

  async #stop(): Promise<void> {
    const proc = this.#proc
    if (!proc || proc.pid === null || this.#exit) return
    const exited = once(this, 'exit')
    proc.terminate()
    const timer = setTimeout(() => {
      this.#logger?.warn(`ui sidecar (pid ${proc.pid}) did not stop within ${SIDECAR_STOP_GRACE_MS / 1000} s; killing its process tree`)
      void proc.kill()
    }, SIDECAR_STOP_GRACE_MS + (this.spec.kind === 'command' ? GUARD_EXTRA_MS : 0))
    await exited
    clearTimeout(timer)
  }
}

export function describeExit(e: SidecarExit): string {
  return e.signal ? `killed by signal ${e.signal}` : `exit code ${e.code}`
}

/** One GET, status only (node:http: the supervisor stays free of the HTTP client library). */
function httpStatus(url: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { timeout: timeoutMs, agent: false }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.once('timeout', () => req.destroy(new Error('timeout')))
    req.once('error', reject)
  })
}
