import { SupervisorToGateway } from '../ipc/messages.js'
import { registerAppLoader } from '../src/target/load-target.js'

/**
 * A standby worker (`SVC_WORKER_STANDBY=1`, svc dev --reload): svc's runtime and the app loader
 * are loaded now, while the developer is still typing; the supervisor's `start` lets
 * it go on. Settings, logger and the app are read after that, so they are those of the edit.
 */
export async function standBy(): Promise<void> {
  await registerAppLoader()
  await new Promise<void>((resolve) => {
    // The supervisor went away before it needed this worker.
    const orphaned = (): void => process.exit(0)
    const onMessage = (raw: unknown): void => {
      if (SupervisorToGateway.safeParse(raw).data?.type !== 'start') return
      process.off('message', onMessage)
      process.off('disconnect', orphaned)
      resolve()
    }
    process.on('message', onMessage)
    process.once('disconnect', orphaned)
  })
}
