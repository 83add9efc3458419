import { connect, type Socket } from 'node:net'
import { once } from 'node:events'

/** A raw client connection that records what it receives and when it closes. */
export class RawClient {
  readonly socket: Socket
  received = ''
  readonly closed: Promise<number>
  readonly #opened = Date.now()

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1')
    this.socket.on('data', (d: Buffer) => (this.received += d.toString('latin1')))
    // A reset after the answer is a close too; what counts is what arrived before it.
    this.socket.on('error', () => {})
    this.closed = once(this.socket, 'close').then(() => Date.now() - this.#opened)
  }

  async ready(): Promise<this> {
    if (this.socket.connecting) await once(this.socket, 'connect')
    return this
  }

  write(text: string): void {
    if (this.socket.writable) this.socket.write(text)
  }

  /** Resolves when `pattern` has arrived; rejects at the deadline or when the socket closes first. */
  async waitFor(pattern: RegExp, timeoutMs = 5_000): Promise<string> {
    const deadline = Date.now() + timeoutMs
    while (!pattern.test(this.received)) {
      if (this.socket.destroyed) throw new Error(`socket closed before ${pattern}; got: ${JSON.stringify(this.received)}`)
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`no ${pattern} within ${timeoutMs} ms; got: ${JSON.stringify(this.received)}`)
      await Promise.race([once(this.socket, 'data'), this.closed, new Promise((r) => setTimeout(r, left))])
    }
    return this.received
  }

  /** Milliseconds from connect to close; rejects when the socket is still open at the deadline. */
  async closedWithin(timeoutMs: number): Promise<number> {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`socket still open after ${timeoutMs} ms; got: ${JSON.stringify(this.received)}`)), timeoutMs)
    })
    try {
      return await Promise.race([this.closed, late])
    } finally {
      clearTimeout(timer)
      this.socket.destroy()
    }
  }
}
