import type { RunningSidecar } from './sidecar.js'

// The bundled page server, started by the supervisor with child_process.fork (IPC present). Its
// title is set before the rest loads, so `ps` never shows a nameless node while it starts.
process.title = 'svc sidecar'
const { describeStartupError, readSidecarEnv, startSidecar, startupFatal } = await import('./sidecar.js')
const { endOwnTree } = await import('../../../supervisor/kill-tree.js')
const { logUncaught } = await import('../../internal/uncaught.js')
let sidecar: RunningSidecar | null = null
let stopping = false

async function stop(code: number): Promise<void> {
  if (stopping) return
  stopping = true
  try {
    await sidecar?.close()
    sidecar?.logger.flush()
    // Processes the pages started go with the page server, also those in a session of their own.
    await endOwnTree()
  } finally {
    process.exit(code)
  }
}

try {
  sidecar = await startSidecar(readSidecarEnv(process.env))
} catch (err) {
  // Under the supervisor, it reports the failure (once, next to the gateway's verdict on the same app).
  const fatal = startupFatal(err)
  if (process.send) process.send(fatal, () => process.exit(1))
  else {
    process.stderr.write(describeStartupError(err) + '\n')
    process.exit(1)
  }
}
if (sidecar) logUncaught(sidecar.logger, 'the page server exits 1; the supervisor stops svc')
process.on('SIGTERM', () => void stop(0))
process.on('SIGINT', () => void stop(0))
// The parent died or dropped us: never outlive the supervisor.
process.on('disconnect', () => void stop(0))
