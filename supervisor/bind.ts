import net from 'node:net'
import { lookup } from 'node:dns/promises'
import { getSystemErrorName } from 'node:util'
import { SvcError } from '../src/errors.js'

/**
 * The public port, bound once by the supervisor and handed to every gateway worker. The handle
 * is bound but never listened on here, so the supervisor itself accepts nothing; each worker
 * listens on its copy. A clash fails here, before any child is started.
 */
export interface BoundPort {
  handle: object
  host: string
  port: number
}

type CreateServerHandle = (address: string, port: number, addressType: number, fd: number | undefined, flags: number) => object | number

/** What a raw TCP server handle offers besides being passed around. */
interface ServerHandle {
  getsockname(out: { port?: number }): void
  listen(backlog: number): number
  close(): void
  readonly fd: number
}

/**
 * A TCP server handle bound (not listening) to `address:port`, with the port it got (the
 * kernel's choice for 0); the errno name when the bind failed. The same primitive node:cluster
 * uses to share one listening socket between processes.
 */
function bindHandle(address: string, port: number, family: number): { handle: ServerHandle; port: number } | string {
  const create = (net as unknown as { _createServerHandle: CreateServerHandle })._createServerHandle
  const handle = create(address, port, family, undefined, 0)
  if (typeof handle === 'number') return getSystemErrorName(handle)
  const out: { port?: number } = {}
  ;(handle as ServerHandle).getsockname(out)
  return { handle: handle as ServerHandle, port: out.port ?? port }
}

export async function bindPublicPort(host: string, port: number): Promise<BoundPort> {
  let address: string
  let family: number
  try {
    ;({ address, family } = await lookup(host))
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message
    throw new SvcError(
      'SVC_ERR_PROCESS_HOST_UNRESOLVABLE',
      `cannot resolve the bind host ${JSON.stringify(host)} (--host / SVC_GATEWAY_HOST / gateway_host: ${reason}); pass an IP address such as 127.0.0.1, 0.0.0.0 or ::, or a name this machine resolves`,
      { cause: err },
    )
  }
  // The shared handle is bound with SO_REUSEADDR but not listened on here, so a clash would only
  // show when a worker listens: a plain listen first finds it now, before any child starts.
  // Port 0 cannot clash, and a probe would free the kernel's pick for others before we hold it.
  const probed = port === 0 ? 0 : await probeListen(address, port).catch((err: NodeJS.ErrnoException) => err)
  if (probed instanceof Error) throw cannotBind(address, port, probed.code ?? probed.message)
  const bound = bindHandle(address, probed, family)
  if (typeof bound === 'string') throw cannotBind(address, port, bound)
  return { handle: bound.handle, host: address, port: bound.port }
}

/** The public port could not be bound (`reason`: errno name or message), with the fix for a port in use. */
function cannotBind(address: string, port: number, reason: string): SvcError {
  const hint = reason === 'EADDRINUSE' ? '; stop what listens there (svc shutdown, if it is svc) or pass another --port' : ''
  return new SvcError('SVC_ERR_PROCESS_PORT_IN_USE', `cannot bind ${address}:${port}: ${reason}${hint}`)
}

/** Listen on `address:port` and close again; resolves with the port (the kernel's choice for 0). */
function probeListen(address: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.once('error', reject)
    srv.listen({ host: address, port, exclusive: true }, () => {
      const bound = (srv.address() as net.AddressInfo).port
      srv.close(() => resolve(bound))
    })
  })
}

/** A free loopback port for a `ui_command` sidecar, which binds it itself (the supervisor only picks it). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.unref()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo
      srv.close(() => resolve(port))
    })
  })
}

/**
 * A loopback socket bound to a free port and held until the bundled page server inherits it (an
 * extra stdio entry) and listens on it. Picking a port and letting the child bind it a second
 * later left a window in which another process could take it: trees starting together then
 * answered each other's requests.
 */
export interface ReservedPort {
  port: number
  /**
   * Start listening and return the fd to pass down. Call it right before the fork, in the same
   * tick: connections then wait in the backlog for the child, while this process, which never
   * accepts on it, must not reach its event loop with the socket still open.
   */
  listenFd(): number
  /** Close this process's copy (once the child holds its own). Idempotent. */
  release(): void
}

export function reserveLoopbackPort(): ReservedPort {
  const bound = bindHandle('127.0.0.1', 0, 4)
  if (typeof bound === 'string') throw new SvcError('SVC_ERR_PROCESS_SIDECAR_START', `cannot bind a loopback port for the ui sidecar: ${bound}`)
  const { handle: h, port } = bound
  let open = true
  return {
    port,
    listenFd: () => {
      const err = h.listen(511)
      if (err !== 0) throw new SvcError('SVC_ERR_PROCESS_SIDECAR_START', `cannot listen on the ui sidecar's port ${port}: ${getSystemErrorName(err)}`)
      return h.fd
    },
    release: () => {
      if (open) h.close()
      open = false
    },
  }
}

/** `SVC_INTERNAL_API_BASE`: unspecified binds map to loopback, IPv6 literals are bracketed. */
export function internalApiBase(host: string, port: number, mount: string): string {
  let h = host
  if (h === '' || h === '0.0.0.0') h = '127.0.0.1'
  else if (h === '::' || h === '[::]') h = '[::1]'
  else if (h.includes(':') && !h.startsWith('[')) h = `[${h}]`
  return `http://${h}:${port}${mount}`
}
