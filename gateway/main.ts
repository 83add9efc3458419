import { resolveProcessSettings } from '../src/settings/resolve.js'
import { createRootLogger, childLogger } from '../src/logging/logger.js'
import { processChannel } from '../ipc/channel.js'
import { GatewayToSupervisor, SupervisorToGateway } from '../ipc/messages.js'
import { GatewayActor } from './actor.js'
import { parseChildEnv } from '../ipc/child-env.js'
import { endOwnTree } from '../supervisor/kill-tree.js'
import { logUncaught } from '../src/internal/uncaught.js'

const env = parseChildEnv()
if (env.standby) {
  // Not a gateway worker yet for `ps` and process checks: it serves nothing until started.
  process.title = 'svc standby worker'
  await (await import('./standby.js')).standBy()
}
process.title = 'svc gateway'
const settings = resolveProcessSettings()
const logger = childLogger(createRootLogger(settings), 'svc.gateway', { worker_pid: process.pid })
logUncaught(logger, 'this gateway worker exits 1; the supervisor restarts it')
const channel = processChannel(process, { incoming: SupervisorToGateway, outgoing: GatewayToSupervisor }, logger, 'supervisor')
const actor = new GatewayActor({ target: settings.target, uiUpstream: env.uiUpstream, workerId: env.workerId ?? '0', logger, devMode: env.devMode, channel, exit: (code) => void endOwnTree().finally(() => process.exit(code)) })
// The supervisor sends exactly one graceful stop over IPC; direct signals mean the same.
process.on('SIGTERM', () => void actor.close(settings.shutdown_grace_s * 1000))
// As for the supervisor: a second Ctrl-C stops now.
let interrupts = 0
process.on('SIGINT', () => void (++interrupts === 1 ? actor.close(settings.shutdown_grace_s * 1000) : actor.destroy()))
await actor.start()
