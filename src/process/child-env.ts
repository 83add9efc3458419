import { z } from '../internal/zod.js'
import { SvcError } from '../errors.js'

/**
 * The environment contract between the supervisor and its children, beside the user's SVC_*
 * settings (which the children resolve like any app). `childEnv()` is the one writer
 * (supervisor/start.ts, supervisor.ts, worker.ts, sidecar.ts); `parseChildEnv()` is the one
 * reader, called once by each child main. Names are documented in docs/configuration.md.
 */
export const TREE_ENV = 'SVC_TREE_ID'

const flag = z
  .string()
  .optional()
  .transform((v) => /^(1|true|yes|on)$/i.test(v ?? ''))
/** Unset and '' both mean "not given". */
const text = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : v))

export const ChildEnvSchema = z.object({
  SVC_APP: text,
  SVC_INTERNAL_API_BASE: text,
  SVC_UI_UPSTREAM: text,
  SVC_UI_PORT: text.pipe(
    z
      .string()
      .regex(/^\d{1,5}$/)
      .transform(Number)
      .pipe(z.number().int().max(65535))
      .optional(),
  ),
  SVC_UI_HOST: text,
  SVC_UI_LISTEN_FD: text.pipe(z.string().regex(/^\d{1,4}$/).transform(Number).optional()),
  SVC_ROOT_PATH: text,
  SVC_DEV_RELOAD: flag,
  SVC_DEV_MODE: flag,
  SVC_WORKER_ID: text,
  SVC_WORKER_STANDBY: flag,
  [TREE_ENV]: text,
  NODE_COMPILE_CACHE: text,
})

/** What a child learns from the supervisor, parsed. */
export interface ChildEnv {
  /** The app target (`file.ts:export`), default `app:app`. */
  app: string
  internalApiBase: string | undefined
  /** The sidecar URL, '' when none is configured. */
  uiUpstream: string
  /** The port the bundled page server listens on; 0 picks a free one. */
  uiPort: number
  uiHost: string
  /** An inherited socket, already bound to `uiPort`, for the bundled page server to listen on. */
  uiListenFd: number | undefined
  rootPath: string
  devReload: boolean
  /** Started by `svc dev`: mode-dependent defaults (show_error_details) take their dev value. */
  devMode: boolean
  workerId: string | undefined
  /** A spare worker (svc dev --reload): it loads svc's runtime, then waits for `start` before the app. */
  standby: boolean
  /** The cookie every process of this run carries (src/process/kill-tree.ts). */
  treeId: string | undefined
  compileCache: string | undefined
}

/** Parse once in a child main; a bad `SVC_UI_PORT` or `SVC_UI_LISTEN_FD` is `SVC_ERR_UI_SIDECAR_START` naming the value. */
export function parseChildEnv(env: NodeJS.ProcessEnv = process.env): ChildEnv {
  const parsed = ChildEnvSchema.safeParse(env)
  if (!parsed.success) {
    // Only the two numbers can fail: every other field is free text or a flag.
    const name = parsed.error.issues[0]?.path[0] === 'SVC_UI_LISTEN_FD' ? 'SVC_UI_LISTEN_FD' : 'SVC_UI_PORT'
    const expected = name === 'SVC_UI_PORT' ? 'a port number (0-65535)' : 'a file descriptor number'
    throw new SvcError('SVC_ERR_UI_SIDECAR_START', `${name}=${JSON.stringify(env[name])} is not ${expected}`)
  }
  const e = parsed.data
  return {
    app: e.SVC_APP ?? 'app:app',
    internalApiBase: e.SVC_INTERNAL_API_BASE,
    uiUpstream: e.SVC_UI_UPSTREAM ?? '',
    uiPort: e.SVC_UI_PORT ?? 0,
    uiHost: e.SVC_UI_HOST ?? '127.0.0.1',
    uiListenFd: e.SVC_UI_LISTEN_FD,
    rootPath: e.SVC_ROOT_PATH ?? '',
    devReload: e.SVC_DEV_RELOAD,
    devMode: e.SVC_DEV_MODE,
    workerId: e.SVC_WORKER_ID,
    standby: e.SVC_WORKER_STANDBY,
    treeId: e[TREE_ENV],
    compileCache: e.NODE_COMPILE_CACHE,
  }
}

/** The env entries for the given fields; fields left out are not written. */
export function childEnv(fields: Partial<ChildEnv>): Record<string, string> {
  const out: Record<string, string> = {}
  const put = (name: string, value: string | number | undefined): void => {
    if (value !== undefined) out[name] = String(value)
  }
  put('SVC_APP', fields.app)
  put('SVC_INTERNAL_API_BASE', fields.internalApiBase)
  put('SVC_UI_UPSTREAM', fields.uiUpstream)
  put('SVC_UI_PORT', fields.uiPort)
  put('SVC_UI_HOST', fields.uiHost)
  put('SVC_UI_LISTEN_FD', fields.uiListenFd)
  put('SVC_ROOT_PATH', fields.rootPath)
  if (fields.devReload) out.SVC_DEV_RELOAD = '1'
  if (fields.devMode) out.SVC_DEV_MODE = '1'
  put('SVC_WORKER_ID', fields.workerId)
  if (fields.standby) out.SVC_WORKER_STANDBY = '1'
  put(TREE_ENV, fields.treeId)
  put('NODE_COMPILE_CACHE', fields.compileCache)
  return out
}
