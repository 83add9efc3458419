import { existsSync } from 'node:fs'
import type { Logger } from 'pino'
import { stateFilePath, writeStateFile, removeStateFileSync } from '../state/state-file.js'
import { PidfileHold } from './pidfile-hold.js'

/** What the state file says of a running tree (`state/state-file.ts`). */
export interface TreeState {
  treeId: string
  target: string
  uiUpstream: string
  sidecarPid: number | null
  host: string
  port: number
  workers: readonly { pid: number; startedAt: Date }[]
}

/** How often a running supervisor checks that its pid file and state file still exist. */
const PIDFILE_CHECK_MS = 2_000

/**
 * The supervisor's pid file and state file: the pid file claimed once the probe named it (and
 * moved if a later start of `svc dev --reload` names another), the state file written for every
 * topology (in order: a later one is never overwritten by an earlier write), both written again
 * when deleted while the tree runs (by hand, `git clean -x`), both removed when svc exits, and
 * only while they still name this process.
 */
export class StateKeeper {
  readonly #hold = new PidfileHold()
  readonly #startedAt = new Date().toISOString()
  readonly #cmdline: string[] | undefined
  #logger: Logger | null = null
  #latest: TreeState | null = null
  #controlSocket: string | null = null
  #writes: Promise<void> = Promise.resolve()
  #watch: NodeJS.Timeout | null = null

  constructor(cmdline: string[] | undefined) {
    this.#cmdline = cmdline
  }

  /** The pid file held (absolute), or null (`--no-pidfile`, or not claimed yet). */
  get pidfile(): string | null {
    return this.#hold.path
  }

  /** Hold `path` (null: none) instead of what is held now; throws `SvcError` when another svc holds it. */
  claim(path: string | null): void {
    this.#hold.take(path)
  }

  /** Where trouble writing the files is reported, from the first topology on. */
  attach(logger: Logger): void {
    this.#logger = logger
  }

  /** The control socket to name in the state file (null: none). */
  set controlSocket(path: string | null) {
    this.#controlSocket = path
    if (this.#latest) this.publish(this.#latest)
  }

  /** Write the state of `tree` (chained after the writes before it) and keep the files there. */
  publish(tree: TreeState): void {
    this.#latest = tree
    const path = this.#hold.path
    if (!path) return
    this.#watch ??= setInterval(() => this.#restoreDeleted(), PIDFILE_CHECK_MS).unref()
    this.#writes = this.#writes
      .then(async () => {
        // Never the state of another svc's pid file; a pid file deleted by hand is claimed again.
        if (!this.#hold.ensure()) {
          this.#logger?.warn(`${path} now names another running svc; this one no longer writes it or its state file (stop it with a signal to pid ${process.pid})`)
          return
        }
        await writeStateFile(stateFilePath(path), {
          version: 2,
          tree_id: tree.treeId,
          supervisor_pid: process.pid,
          ui_upstream: tree.uiUpstream,
          gateway_host: tree.host,
          gateway_port: tree.port,
          workers: tree.workers.map((w) => ({ pid: w.pid, started_at: w.startedAt.toISOString() })),
          sidecar_pid: tree.sidecarPid,
          started_at: this.#startedAt,
          target: tree.target,
          ...(this.#cmdline ? { cmdline: this.#cmdline } : {}),
          ...(this.#controlSocket ? { control_socket: this.#controlSocket } : {}),
        })
      })
      .catch((err: Error) => this.#logger?.warn({ err }, `cannot write ${path} or its state file`))
  }

  /** Every write asked for so far is done. */
  flushed(): Promise<void> {
    return this.#writes
  }

  /** Stop watching; remove the state file and the pid file if the pid file still names this process. */
  release(): void {
    if (this.#watch) clearInterval(this.#watch)
    this.#watch = null
    const path = this.#hold.path
    if (path !== null && this.#hold.owns()) removeStateFileSync(stateFilePath(path))
    this.#hold.release()
  }

  #restoreDeleted(): void {
    const path = this.#hold.path
    if (this.#latest === null || path === null) return
    if (!existsSync(path) || (!existsSync(stateFilePath(path)) && this.#hold.owns())) {
      this.#logger?.warn(`${path} or its state file was deleted while svc runs; written again`)
      this.publish(this.#latest)
    }
  }
}
