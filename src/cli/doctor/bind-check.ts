import { readStateFile, stateFilePath } from '../../../state/state-file.js'
import { isRunning } from '../../process/process-check.js'
import { probeBind } from './net-probe.js'
import { fail, pass, warn, type SettingsCheck } from './types.js'

function showHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host
}

/** Is the running svc (per the state file) the one holding `port`? Then in-use is expected. */
async function runningSvcOnPort(pidfile: string, port: number): Promise<number | null> {
  try {
    const state = await readStateFile(stateFilePath(pidfile))
    return state.gateway_port === port && isRunning(state.supervisor_pid) ? state.supervisor_pid : null
  } catch {
    return null
  }
}

export const gatewayBind: SettingsCheck = async (ctx) => {
  const name = 'gateway_bind'
  const { gateway_host: host, gateway_port: port } = ctx.settings
  const where = `${showHost(host)}:${port}`
  if (port === 0) return pass(name, `${showHost(host)}:0 (a free port is picked at start)`)
  const result = await probeBind(host, port)
  if (result.ok) return pass(name, `${where} is available`)
  if (result.code === 'EADDRINUSE') {
    const pid = ctx.running?.port === port ? ctx.running.pid : await runningSvcOnPort(ctx.pidfile, port)
    if (pid !== null) return pass(name, `${where} is served by the running svc (supervisor pid ${pid})`)
    return fail(name, `${where} is already in use by another process; stop it or pick another port with --port / SVC_GATEWAY_PORT`)
  }
  if (result.code === 'ENOTFOUND' || result.code === 'EAI_AGAIN') {
    return fail(name, `could not resolve bind host ${JSON.stringify(host)} (${result.code}); use an IP such as 127.0.0.1 or 0.0.0.0`)
  }
  return fail(name, `cannot bind ${where}: ${result.code} ${result.message}`)
}
