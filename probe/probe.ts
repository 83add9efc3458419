import { z } from '../src/internal/zod.js'
import { SvcError, isSvcError } from '../src/errors.js'
import { processChannel, type Channel } from '../ipc/channel.js'
import { ProbeToSupervisor } from '../ipc/messages.js'
import { createRootLogger } from '../src/logging/logger.js'
import { configFileLayer, envLayer, flagsLayer, resolveSettings } from '../src/settings/resolve.js'
import type { ResolvedSettings } from '../src/settings/schema.js'
import { markPagesOnly } from '../src/internal/process-role.js'
import { loadTarget, parseTarget, resolveTargetFile } from '../src/target/load-target.js'
import { PageDirectory } from '../src/ui/page-directory.js'
import { declaredComponents } from '../src/ui/components.js'
import { pageSideOf } from '../src/ui/page-app.js'

/** What the probe is asked (argv[2], JSON): the CLI flags, so that errors name them. */
export const ProbeRequest = z.object({
  flags: z.record(z.string(), z.object({ flag: z.string(), value: z.unknown() })),
})
export type ProbeRequest = z.infer<typeof ProbeRequest>

/** The probe's one message, to the process that forked it (nothing comes the other way). */
export function reportChannel(): Channel<never, ProbeToSupervisor> {
  const logger = createRootLogger({ log_level: 'warn', log_format: 'json' }, process.stderr)
  return processChannel(process, { incoming: z.never(), outgoing: ProbeToSupervisor }, logger, 'supervisor')
}

/**
 * Resolve the settings known without the app (svc.config.json < SVC_* env < flags) and hand them
 * to `early`, find the target, load the app (pages only: Fastify is not built here) and describe
 * it. Never throws: every failure is a report.
 */
export async function probe(requestJson: string, early: (report: ProbeToSupervisor) => void): Promise<ProbeToSupervisor> {
  let provisional: ResolvedSettings
  try {
    const request = ProbeRequest.parse(JSON.parse(requestJson || '{"flags":{}}'))
    provisional = resolveSettings([configFileLayer(), envLayer(), flagsLayer(request.flags)])
    resolveTargetFile(parseTarget(provisional.target).module)
  } catch (err) {
    return failed('settings', err, null)
  }
  early({ svc: 1, type: 'provisional', settings: provisional })
  try {
    markPagesOnly()
    const loaded = await withinStartTimeout(loadTarget(provisional.target), provisional.gateway_start_timeout_s)
    const { file, exportName } = loaded
    const app = pageSideOf(loaded.app)
    const profile = { settings: app.settings, pages: new PageDirectory(app.pages).keys(), file, exportName, components: declaredComponents() }
    return { svc: 1, type: 'probed', profile }
  } catch (err) {
    return failed('app', err, provisional)
  }
}

/** The app's load, failed when it does not settle within `gateway_start_timeout_s` (as a worker's would). */
function withinStartTimeout<T>(load: Promise<T>, seconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(
        new SvcError(
          'SVC_ERR_PROCESS_WORKER_START_TIMEOUT',
          `the app did not finish loading within ${seconds} s (gateway_start_timeout_s): does the app module await something at import that never settles? Raise SVC_GATEWAY_START_TIMEOUT_S if loading takes longer`,
        ),
      )
    }, seconds * 1000)
  })
  return Promise.race([load, timeout]).finally(() => clearTimeout(timer))
}

function failed(stage: 'settings' | 'app', err: unknown, settings: ResolvedSettings | null): ProbeToSupervisor {
  // An app may throw anything, not only an Error.
  const message = err instanceof Error ? err.message : String(err)
  const code = isSvcError(err) ? err.code : stage === 'settings' ? 'SVC_ERR_CONFIG_INVALID' : 'SVC_ERR_TARGET_IMPORT_FAILED'
  return { svc: 1, type: 'probe_failed', stage, code, message, settings }
}
