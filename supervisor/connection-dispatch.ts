import net, { type Socket } from 'node:net'
import type { Logger } from 'pino'
import { SvcError } from '../src/errors.js'
import { Lifecycle } from '../src/internal/lifecycle.js'

/**
 * With several gateway workers the supervisor accepts on the public port itself and deals each
 * new connection to the next ready worker, round-robin, over IPC. Left to the kernel (every worker
 * accepting on the one shared socket), connections pile onto whichever worker woke last: 100/0
 * splits at low concurrency, 90/10 at 50 connections (docs/architecture.md has the figures).
 *
 * Sockets are accepted paused, so nothing the client sent is read here: the worker reads it all.
 * A connection stays the supervisor's (its copy of the socket stays open) until the worker
 * acknowledges it. A worker that exits or refuses before that never read from the socket, so the
 * connection goes to the next worker instead of being lost: this is what lets a reload swap the
 * workers under a stream of new connections. A worker holds at most MAX_IN_FLIGHT unacknowledged
 * connections (its event loop or IPC channel is slow): past that it is skipped, and when every
 * worker is, connections wait here in arrival order.
 */
export interface ConnectionTaker {
  /** Only `ready` workers get connections: starting, draining and exited ones are skipped. */
  readonly phase: string
  /** Hand `socket` over as connection `id`; false when the IPC channel is already gone. */
  sendConnection(id: number, socket: Socket): boolean
}

/**
 * Handed over but not acknowledged yet, per worker. High enough that a burst of new connections
 * is still dealt strictly in turn while one worker is briefly descheduled (with 8, a burst of 50
 * keep-alive connections on a busy 2-core machine went 39/11); a worker that stays stuck keeps
 * at most this many waiting.
 */
export const MAX_IN_FLIGHT = 64

interface Member {
  worker: ConnectionTaker
  inFlight: number
}

interface Handoff {
  id: number
  socket: Socket
  member: Member | null
}

export class ConnectionDispatcher extends Lifecycle {
  readonly #handle: object
  readonly #logger: Logger
  readonly #server: net.Server
  /** The rotation: workers that reported ready, until their IPC channel closes. */
  #members: Member[] = []
  #cursor = 0
  readonly #queue: Handoff[] = []
  readonly #unacked = new Map<number, Handoff>()
  #nextId = 1

  constructor(handle: object, logger: Logger) {
    super()
    this.#handle = handle
    this.#logger = logger
    this.#server = net.createServer({ pauseOnConnect: true }, (socket) => this.#route({ id: this.#nextId++, socket, member: null }))
  }

  /** Accept on the bound public port; connections wait here until a worker joins. */
  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      const onListenError = (err: NodeJS.ErrnoException): void => {
        reject(new SvcError('SVC_ERR_PROCESS_PORT_IN_USE', `cannot listen on the public port: ${err.code ?? err.message}`, { cause: err }))
      }
      this.#server.once('error', onListenError)
      // Closed (a stop during start-up) before it listened: the listen callback never comes.
      this.#server.once('close', () => reject(new SvcError('SVC_ERR_PROCESS_START_CANCELLED', 'svc stopped before the public port was accepted on')))
      this.#server.listen(this.#handle, () => {
        this.#server.off('error', onListenError)
        // Accept errors (EMFILE…): node goes on accepting; report them instead of crashing.
        this.#server.on('error', (err) => this.#logger.warn({ err }, `accepting a connection on the public port failed: ${err.message}`))
        resolve()
      })
    })
  }

  /**
   * Stop accepting. Queued connections are closed; handed-over ones finish in their worker (this
   * process's copies of those not acknowledged yet close with the acknowledgement or the worker's
   * exit). Resolves at once: nothing here waits on the workers.
   */
  protected async drain(): Promise<void> {
    this.#server.close()
    for (const h of this.#queue.splice(0)) h.socket.destroy()
  }

  /** As `drain`, and this process's copies of connections not acknowledged yet close now too (a worker that took one keeps its own). */
  protected async abort(): Promise<void> {
    await this.drain()
    for (const h of this.#unacked.values()) h.socket.destroy()
    this.#unacked.clear()
  }

  /** `worker` is ready: it joins the rotation. */
  join(worker: ConnectionTaker): void {
    if (this.#members.some((m) => m.worker === worker)) return
    this.#members.push({ worker, inFlight: 0 })
    this.#flush()
  }

  /**
   * `worker`'s IPC channel closed (it exited): it leaves the rotation, and every connection it had
   * not acknowledged (so never read from) goes to the front of the queue, in arrival order.
   */
  leave(worker: ConnectionTaker): void {
    this.#members = this.#members.filter((m) => m.worker !== worker)
    const orphaned = [...this.#unacked.values()].filter((h) => h.member?.worker === worker)
    for (const h of orphaned) {
      this.#unacked.delete(h.id)
      h.member = null
    }
    this.#requeue(orphaned)
  }

  /** The worker's `connection_ack`. Refused: it stopped serving on its own, so it leaves the rotation. */
  acknowledged(worker: ConnectionTaker, id: number, accepted: boolean): void {
    const h = this.#unacked.get(id)
    if (!h || h.member?.worker !== worker) return
    this.#unacked.delete(id)
    h.member.inFlight--
    h.member = null
    if (accepted) {
      // Only this process's copy: the worker's keeps the connection open.
      h.socket.destroy()
      this.#flush()
      return
    }
    this.#members = this.#members.filter((m) => m.worker !== worker)
    this.#requeue([h])
  }

  #requeue(handoffs: Handoff[]): void {
    if (this.closed) {
      for (const h of handoffs) h.socket.destroy()
      return
    }
    this.#queue.unshift(...handoffs)
    this.#flush()
  }

  #route(h: Handoff): void {
    if (this.closed) {
      h.socket.destroy()
      return
    }
    this.#queue.push(h)
    this.#flush()
  }

  /** Hand queued connections out, oldest first, while some worker can take one. */
  #flush(): void {
    while (this.#queue.length > 0) {
      const member = this.#next()
      if (!member) return
      const h = this.#queue.shift()!
      h.member = member
      member.inFlight++
      this.#unacked.set(h.id, h)
      if (!member.worker.sendConnection(h.id, h.socket)) {
        // Its channel is gone (the exit is on its way): back to the front, try the next worker.
        this.#unacked.delete(h.id)
        h.member = null
        this.#members = this.#members.filter((m) => m !== member)
        this.#queue.unshift(h)
      }
    }
  }

  /** Round-robin over the ready workers that are not saturated. */
  #next(): Member | null {
    const n = this.#members.length
    for (let i = 0; i < n; i++) {
      const index = (this.#cursor + i) % n
      const m = this.#members[index]!
      if (m.worker.phase === 'ready' && m.inFlight < MAX_IN_FLIGHT) {
        this.#cursor = (index + 1) % n
        return m
      }
    }
    return null
  }
}
