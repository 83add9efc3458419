import { relative, resolve } from 'node:path'
import { SvcError } from '../src/errors.js'
import { claimPidfile, releasePidfile, type PidfileClaim } from '../state/pidfile-claim.js'
import { readPidfileSync } from '../state/pidfile.js'

/**
 * The supervisor's hold on its pidfile: claimed before it binds anything (`state/pidfile-claim.ts`),
 * moved if the app's own settings name another, released (only while it still names this
 * process) when the supervisor exits. Refusals (`SVC_ERR_PIDFILE_IN_USE`, `SVC_ERR_PIDFILE_UNWRITABLE`)
 * are usage errors.
 */
export class PidfileHold {
  #path: string | null = null
  readonly #cwd: string

  constructor(cwd: string = process.cwd()) {
    this.#cwd = cwd
  }

  /** The absolute path held, or null (`--no-pidfile`). */
  get path(): string | null {
    return this.#path
  }

  /** Hold `path` (null: none) instead of what is held now. Throws when another svc holds it. */
  take(path: string | null): void {
    const next = path === null ? null : resolve(this.#cwd, path)
    if (next === this.#path) return
    this.release()
    if (next === null) return
    let claim: PidfileClaim
    try {
      claim = claimPidfile(next)
    } catch (err) {
      throw new SvcError('SVC_ERR_PIDFILE_UNWRITABLE', `cannot create the pid file ${this.#show(next)} (${(err as Error).message}); pass --pidfile with a path svc can write, or --no-pidfile`, { cause: err })
    }
    if (!claim.claimed) throw new SvcError('SVC_ERR_PIDFILE_IN_USE', this.#inUse(next, claim))
    this.#path = next
  }

  /** Whether the pidfile still names this process. */
  owns(): boolean {
    if (this.#path === null) return false
    const read = readPidfileSync(this.#path)
    return read.kind === 'ok' && read.pid === process.pid
  }

  /**
   * Claim the pidfile again if it no longer names this process (deleted by hand): `svc shutdown`
   * must find a running tree. False when another svc holds it now.
   */
  ensure(): boolean {
    if (this.#path === null || this.owns()) return this.#path !== null
    const claim = claimPidfile(this.#path)
    return claim.claimed
  }

  release(): void {
    if (this.#path !== null) releasePidfile(this.#path)
    this.#path = null
  }

  #show(path: string): string {
    const rel = relative(this.#cwd, path)
    return rel === '' || rel.startsWith('..') ? path : rel
  }

  #inUse(path: string, claim: Extract<PidfileClaim, { claimed: false }>): string {
    const shown = this.#show(path)
    const host = claim.state?.gateway_host.includes(':') ? `[${claim.state.gateway_host}]` : claim.state?.gateway_host
    const where = claim.state ? `serving http://${host}:${claim.state.gateway_port}` : 'still starting'
    return (
      `another svc (pid ${claim.pid}, ${where}) runs with the pid file ${shown}; ` +
      `stop it first (svc shutdown --pidfile ${shown}), or give this one a pid file of its own: --pidfile <file> (or SVC_PIDFILE)`
    )
  }
}
