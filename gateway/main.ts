import '../src/target/one-shot-transforms.js'
import { createRootLogger, childLogger } from '../src/logging/logger.js'
import { processChannel } from '../ipc/channel.js'
import { GatewayToSupervisor, SupervisorToGateway } from '../ipc/messages.js'
import { GatewayActor } from './actor.js'
import { parseChildEnv } from '../src/process/child-env.js'
import { endOwnTree } from '../src/process/kill-tree.js'
import { runProcess } from '../src/process/run-process.js'
import { settleHeapSoon } from '../src/process/settle-heap.js'
import { awaitStart } from './await-start.js'

const env = parseChildEnv()
// A standby worker is not a gateway worker yet for `ps` and process checks: it serves nothing until started.
process.title = env.standby ? 'svc standby worker' : 'svc gateway'
const settings = await awaitStart(env.standby)
await runProcess(
  // The actor drains an orphan itself, on its own shorter deadline.
  { title: 'svc gateway', parentGone: 'part', beforeExit: endOwnTree },
  async (proc) => {
    const logger = childLogger(createRootLogger(settings), 'svc.gateway', { worker_pid: process.pid })
    proc.logUncaught(logger, 'this gateway worker exits 1; the supervisor restarts it')
    const channel = processChannel(process, { incoming: SupervisorToGateway, outgoing: GatewayToSupervisor }, logger, 'supervisor')
    const actor = new GatewayActor({ target: settings.target, uiUpstream: env.uiUpstream, workerId: env.workerId ?? '0', logger, devMode: env.devMode, shutdownGraceMs: settings.shutdown_grace_s * 1000, channel, exit: (code) => void proc.exit(code) })
    // The supervisor sends exactly one graceful stop over IPC; direct signals mean the same.
    proc.serve({ close: () => actor.close(), destroy: () => actor.destroy() })
    await actor.start()
    settleHeapSoon()
  },
)
