import { pino } from 'pino'
import type { Channel } from '../../../ipc/channel.js'
import type { AppProfile, SidecarToSupervisor, SupervisorToSidecar } from '../../../ipc/messages.js'
import { runProbe } from '../../../probe/run-probe.js'
import { SvcError, type SvcErrorCode } from '../../errors.js'

/**
 * The app this page server serves: under the supervisor, its first message (`configure`, the
 * probe's reading of the app at start); started alone (tests, benches), the probe run here.
 */
export async function appProfile(channel: Channel<SupervisorToSidecar, SidecarToSupervisor> | null, target: string): Promise<AppProfile> {
  if (channel) {
    return new Promise<AppProfile>((resolve) => {
      const stop = channel.onMessage((m) => {
        if (m.type !== 'configure') return
        stop()
        resolve(m.profile)
      })
    })
  }
  const outcome = await runProbe({ flags: { target: { flag: 'SVC_APP', value: target } } }, { env: process.env, cookie: null, logger: pino({ level: 'warn' }) }).outcome
  if (outcome.ok) return outcome.profile
  throw new SvcError(outcome.code as SvcErrorCode, outcome.message)
}
