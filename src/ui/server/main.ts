import { runProcess } from '../../process/run-process.js'

// The bundled page server, started by the supervisor with child_process.fork (IPC present). Its
// title is set before the rest loads, so `ps` never shows a nameless node while it starts.
await runProcess(
  // Processes the pages started go with the page server, also those in a session of their own.
  { title: 'svc sidecar', beforeExit: async () => (await import('../../process/kill-tree.js')).endOwnTree() },
  async (proc) => {
    const { answerReloads, describeStartupError, readSidecarEnv, startSidecar, startupFatal } = await import('./sidecar.js')
    const env = readSidecarEnv(process.env)
    let sidecar
    try {
      sidecar = await startSidecar(env)
    } catch (err) {
      // Under the supervisor, it reports the failure (once, next to the gateway's verdict on the same app).
      const fatal = startupFatal(err)
      if (process.send) process.send(fatal, () => void proc.exit(1))
      else {
        process.stderr.write(describeStartupError(err) + '\n')
        await proc.exit(1)
      }
      return
    }
    const running = sidecar
    if (env.devReload && process.send) answerReloads(running)
    proc.logUncaught(running.logger, 'the page server exits 1; the supervisor stops svc')
    proc.serve({
      close: async () => {
        await running.close()
        running.logger.flush()
        await proc.exit(0)
      },
      // A second Ctrl-C: no drain, but still nothing the pages started is left behind.
      destroy: async () => {
        running.logger.flush()
        await proc.exit(1)
      },
    })
  },
)
