import { createConnection, createServer } from 'node:net'

export type ProbeResult = { ok: true } | { ok: false; code: string; message: string }

function failure(err: unknown): ProbeResult {
  const e = err as NodeJS.ErrnoException
  return { ok: false, code: e.code ?? e.name, message: e.message }
}

/** Can svc bind `host:port`? Listens exclusively, then closes at once. */
export function probeBind(host: string, port: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', (err) => resolve(failure(err)))
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve({ ok: true })))
  })
}

/** Does anything accept TCP connections on `host:port` within `timeoutMs`? */
export function probeTcp(host: string, port: number, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port })
    const done = (result: ProbeResult): void => {
      socket.destroy()
      resolve(result)
    }
    socket.setTimeout(timeoutMs, () => done({ ok: false, code: 'ETIMEDOUT', message: `no answer within ${timeoutMs} ms` }))
    socket.once('connect', () => done({ ok: true }))
    socket.once('error', (err) => done(failure(err)))
  })
}
