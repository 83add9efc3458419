import { GatewayToSupervisor, SupervisorToGateway } from '../ipc/messages.js'
import { processChannel } from '../ipc/channel.js'
import { createRootLogger } from '../src/logging/logger.js'
import { registerAppLoader } from '../src/target/load-target.js'

/**
 * A standby worker (`SVC_WORKER_STANDBY=1`, svc dev --reload): svc's runtime and the app loader
 * are loaded now, while the developer is still typing; the supervisor's `start` lets
 * it go on. Settings, logger and the app are read after that, so they are those of the edit.
 */
export async function standBy(): Promise<void> {
  await registerAppLoader()
  // No settings yet: until `start`, the only lines are IPC trouble, JSON on stderr.
  const logger = createRootLogger({ log_level: 'warn', log_format: 'json' }, process.stderr)
  const channel = processChannel(process, { incoming: SupervisorToGateway, outgoing: GatewayToSupervisor }, logger, 'supervisor')
  await new Promise<void>((resolve) => {
    // The supervisor went away before it needed this worker.
    const orphaned = (): void => process.exit(0)
    const stop = channel.onMessage((msg) => {
      if (msg.type !== 'start') return
      stop()
      process.off('disconnect', orphaned)
      resolve()
    })
    process.once('disconnect', orphaned)
  })
}
