import { GatewayToSupervisor, SupervisorToGateway } from '../ipc/messages.js'
import { processChannel } from '../ipc/channel.js'
import { createRootLogger } from '../src/logging/logger.js'
import type { ResolvedSettings } from '../src/settings/schema.js'
import { registerAppLoader } from '../src/target/load-target.js'

/**
 * Wait for the supervisor's `start`, which carries the settings this worker serves with. A
 * standby worker (`SVC_WORKER_STANDBY=1`, svc dev --reload) loads svc's runtime and the app
 * loader first, while the developer is still typing; the app itself is read after `start`, so it
 * is that of the edit. A supervisor that goes away first ends the wait and the process.
 */
export async function awaitStart(standby: boolean): Promise<ResolvedSettings> {
  if (standby) await registerAppLoader()
  // No settings yet: until `start`, the only lines are IPC trouble, JSON on stderr.
  const logger = createRootLogger({ log_level: 'warn', log_format: 'json' }, process.stderr)
  const channel = processChannel(process, { incoming: SupervisorToGateway, outgoing: GatewayToSupervisor }, logger, 'supervisor')
  return new Promise<ResolvedSettings>((resolve) => {
    const orphaned = (): void => process.exit(0)
    const stop = channel.onMessage((msg) => {
      if (msg.type !== 'start') return
      stop()
      process.off('disconnect', orphaned)
      resolve(msg.settings)
    })
    process.once('disconnect', orphaned)
  })
}
