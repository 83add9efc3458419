import { createConnection } from 'node:net'
import { ControlAnswer, type ControlRequest } from '../../../ipc/control.js'
import { CONTROL_CONNECT_MS } from '../../internal/deadlines.js'

/** An answer longer than this is not the supervisor's (a status report is a few kB). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024

/**
 * One request to a supervisor's control socket and its answer, checked against `ipc/control.ts`.
 * Rejects with a message for people: the socket refused, permission denied (not the owner), no
 * answer within `timeoutMs`, or an answer that is not one.
 */
export function askControl(socket: string, request: ControlRequest, timeoutMs: number): Promise<ControlAnswer> {
  return new Promise((resolve, reject) => {
    const conn = createConnection(socket)
    let buffered = ''
    let connected = false
    const fail = (message: string): void => {
      conn.destroy()
      reject(new Error(message))
    }
    const connectTimer = setTimeout(() => fail(`the supervisor's control socket ${socket} did not accept within ${CONTROL_CONNECT_MS / 1000} s`), CONTROL_CONNECT_MS)
    const answerTimer = setTimeout(() => fail(`no answer within ${Math.round(timeoutMs / 1000)} s (the supervisor may still be working on it; see its log)`), timeoutMs)
    const done = (): void => {
      clearTimeout(connectTimer)
      clearTimeout(answerTimer)
    }
    conn.once('connect', () => {
      connected = true
      clearTimeout(connectTimer)
      conn.write(JSON.stringify(request) + '\n')
    })
    conn.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8')
      if (buffered.length > MAX_ANSWER_BYTES) fail('the answer is too long to be the supervisor\'s')
    })
    conn.once('end', () => {
      done()
      const line = buffered.split('\n')[0] ?? ''
      let data: unknown
      try {
        data = JSON.parse(line)
      } catch {
        reject(new Error(line === '' ? 'the supervisor closed the control connection without an answer (it is stopping?)' : 'the control socket answered something that is not JSON'))
        return
      }
      const answer = ControlAnswer.safeParse(data)
      if (answer.success) resolve(answer.data)
      else reject(new Error(`the supervisor's answer does not match this svc (${answer.error.issues[0]?.message}); are the svc versions the same?`))
    })
    conn.once('error', (err: NodeJS.ErrnoException) => {
      done()
      if (err.code === 'EACCES' || err.code === 'EPERM') reject(new Error(`permission denied on ${socket}: only the user who started this svc can query or reload it`))
      else if (!connected) reject(new Error(`cannot reach the supervisor's control socket ${socket} (${err.code ?? err.message})`))
      else reject(new Error(`the control connection failed: ${err.message}`))
    })
  })
}
