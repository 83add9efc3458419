import { childEnv } from '../src/process/child-env.js'
import type { ResolvedSettings } from '../src/settings/schema.js'
import { freeLoopbackPort, internalApiBase, reserveLoopbackPort, type BoundPort } from './bind.js'
import type { SidecarSpec } from './sidecar.js'
import { fileURLToPath } from 'node:url'
import type { Readable } from 'node:stream'

/** The bundled page server (src/ui/server/main.ts), next to this file in dist/. */
export const BUNDLED_SIDECAR = fileURLToPath(new URL('../src/ui/server/main.js', import.meta.url))

export interface ChildSpecsOptions {
  mode: 'run' | 'dev' | 'workbench'
  /** `svc dev --reload`: the page server shows a save that does not load in the browsers. */
  devReload: boolean
  /** `NODE_COMPILE_CACHE` for svc's own children (none on Node 20). */
  compileCache: string | undefined
  /** The environment the children start from (the supervisor's, with the flags as `SVC_*`). */
  env: NodeJS.ProcessEnv
}

/**
 * How the supervisor starts each child: the environment of the probe, the gateway workers and
 * the sidecar, and the sidecar's launch (the bundled page server on a socket the supervisor
 * binds, or the user's `ui_command` with its placeholders filled). Settings never travel in the
 * environment (they may hold secrets the app's own children would inherit): the workers and the
 * page server get them over IPC.
 */
export class ChildSpecs {
  readonly #o: ChildSpecsOptions
  /** Where children's standard output goes once `log_file` is open; null: the supervisor's own stdout. */
  stdout: ((stream: Readable) => void) | null = null

  constructor(options: ChildSpecsOptions) {
    this.#o = options
  }

  /** The probe reads the app as a fresh start would: the user's environment and the flags, nothing of ours. */
  probeEnv(): NodeJS.ProcessEnv {
    return { ...this.#o.env, ...childEnv({ compileCache: this.#o.compileCache }) }
  }

  workerEnv(s: ResolvedSettings, bound: BoundPort, uiUpstream: string): NodeJS.ProcessEnv {
    return { ...this.#base(s, bound), ...childEnv({ uiUpstream, devMode: this.#o.mode === 'dev', compileCache: this.#o.compileCache }) }
  }

  /** A sidecar on a fresh loopback port (each full reload gets a new one). */
  async sidecar(s: ResolvedSettings, bound: BoundPort): Promise<SidecarSpec> {
    // The bundled server inherits a socket the supervisor holds bound; a ui_command binds {port} itself.
    const listenSocket = s.ui_command ? undefined : reserveLoopbackPort()
    const port = listenSocket ? listenSocket.port : await freeLoopbackPort()
    const upstream = `http://127.0.0.1:${port}`
    const env: NodeJS.ProcessEnv = { ...this.#base(s, bound), ...childEnv({ uiUpstream: upstream, uiPort: port, uiHost: '127.0.0.1', rootPath: s.root_path }) }
    if (s.ui_command) {
      const fill = (v: string): string => v.replaceAll('{port}', String(port)).replaceAll('{host}', '127.0.0.1').replaceAll('{base_path}', s.root_path)
      return { kind: 'command', script: '', argv: s.ui_command.map(fill), env, port, healthUrl: upstream + fill(s.ui_health_path ?? '/'), ...this.#output() }
    }
    return {
      kind: 'bundled',
      script: BUNDLED_SIDECAR,
      argv: [],
      env: { ...env, ...childEnv({ devReload: this.#o.devReload, devMode: this.#o.mode === 'dev', compileCache: this.#o.compileCache }) },
      port,
      listenSocket,
      healthUrl: `${upstream}${s.root_path}/_stcore/health`,
      ...this.#output(),
    }
  }

  #output(): { stdout?: (stream: Readable) => void } {
    return this.stdout ? { stdout: this.stdout } : {}
  }

  /** What every child of the tree sees: the app, where the API answers, and the real public port (never 0). */
  #base(s: ResolvedSettings, bound: BoundPort): NodeJS.ProcessEnv {
    return {
      ...this.#o.env,
      ...childEnv({ app: s.target, internalApiBase: internalApiBase(s.gateway_host, bound.port, s.api_mount_path) }),
      SVC_GATEWAY_PORT: String(bound.port),
    }
  }
}
