import { runProcess } from '../../process/run-process.js'

// The bundled page server, started by the supervisor with child_process.fork (IPC present). Its
// title is set before the rest loads, so `ps` never shows a nameless node while it starts.
await runProcess(
  // Processes the pages started go with the page server, also those in a session of their own.
  { title: 'svc sidecar', beforeExit: async () => (await import('../../process/kill-tree.js')).endOwnTree() },
  async (proc) => {
    const [{ answerSupervisor, describeStartupError, readSidecarEnv, startSidecar, startupFatal }, { processChannel }, { SidecarToSupervisor, SupervisorToSidecar }, { createRootLogger }, { appProfile }, { settleHeapSoon }] = await Promise.all([
      import('./sidecar.js'),
      import('../../../ipc/channel.js'),
      import('../../../ipc/messages.js'),
      import('../../logging/logger.js'),
      import('./app-profile.js'),
      import('../../process/settle-heap.js'),
    ])
    const env = readSidecarEnv(process.env)
    // Under the supervisor (IPC present): every message goes through the checked channel. Its log
    // lines are IPC trouble only, JSON on stderr (the settings that shape the app's logs load later).
    const channel = process.send ? processChannel(process, { incoming: SupervisorToSidecar, outgoing: SidecarToSupervisor }, createRootLogger({ log_level: 'warn', log_format: 'json' }, process.stderr), 'supervisor') : null
    let sidecar
    try {
      sidecar = await startSidecar(env, await appProfile(channel, env.target))
    } catch (err) {
      // Under the supervisor, it reports the failure (once, next to the gateway's verdict on the same app).
      if (channel) channel.send(startupFatal(err), undefined, { sent: () => void proc.exit(1) })
      else {
        process.stderr.write(describeStartupError(err) + '\n')
        await proc.exit(1)
      }
      return
    }
    const running = sidecar
    if (channel) answerSupervisor(running, channel)
    settleHeapSoon()
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
