import { Command, Option } from 'clipanion'
import type { SettingKey } from '../settings/schema.js'

/** The flags `run`, `dev` and `workbench` share, and how each maps onto a setting. */
export abstract class ServeCommand extends Command {
  target = Option.String({ required: false, name: 'target' })
  host = Option.String('--host', { description: 'Interface to bind (default 127.0.0.1; 0.0.0.0 for all).' })
  port = Option.String('--port', { description: 'Public port (default 8000; 0 picks a free one).' })
  workers = Option.String('--workers', { description: 'Gateway worker processes sharing the port (default 1).' })
  pidfile = Option.String('--pidfile', { description: 'Pid file path (default ./.svc.pid).' })
  noPidfile = Option.Boolean('--no-pidfile', false, { description: 'Do not write a pid file.' })
  proxyHeaders = Option.Boolean('--proxy-headers', false, { description: 'Trust X-Forwarded-* from the proxy in front.' })
  rootPath = Option.String('--root-path', { description: 'Browser-visible path prefix, e.g. /tools.' })
  debug = Option.Boolean('--debug', false, { description: 'Debug mode: access log, /__svc/debug, debug log level.' })
  logFormat = Option.String('--log-format', { description: 'json (default for run) or pretty (default for dev on a TTY).' })
  logLevel = Option.String('--log-level', { description: 'trace, debug, info, warn, error or fatal.' })

  /** Setting values given on the command line, tagged with the flag that gave them. */
  protected settingFlags(): Partial<Record<SettingKey, { flag: string; value: unknown }>> {
    const f: Partial<Record<SettingKey, { flag: string; value: unknown }>> = {}
    if (this.host !== undefined) f.gateway_host = { flag: '--host', value: this.host }
    if (this.port !== undefined) f.gateway_port = { flag: '--port', value: this.port }
    if (this.workers !== undefined) f.workers = { flag: '--workers', value: this.workers }
    if (this.pidfile !== undefined) f.pidfile = { flag: '--pidfile', value: this.pidfile }
    if (this.noPidfile) f.no_pidfile = { flag: '--no-pidfile', value: true }
    if (this.proxyHeaders) f.trust_proxy = { flag: '--proxy-headers', value: true }
    if (this.rootPath !== undefined) f.root_path = { flag: '--root-path', value: this.rootPath }
    if (this.debug) f.debug = { flag: '--debug', value: true }
    if (this.logFormat !== undefined) f.log_format = { flag: '--log-format', value: this.logFormat }
    if (this.logLevel !== undefined) f.log_level = { flag: '--log-level', value: this.logLevel }
    if (this.target !== undefined) f.target = { flag: 'TARGET', value: this.target }
    return f
  }
}
