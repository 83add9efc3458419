// Container HEALTHCHECK without curl: GET healthz on the port svc binds in the container.
// Follows the same settings as svc: SVC_GATEWAY_PORT, SVC_ROOT_PATH, SVC_API_MOUNT_PATH.
const port = process.env.SVC_GATEWAY_PORT || '8000'
const path = `${process.env.SVC_ROOT_PATH ?? ''}${process.env.SVC_API_MOUNT_PATH || '/api'}/healthz`
try {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(4000) })
  process.exitCode = res.status === 200 ? 0 : 1
} catch {
  process.exitCode = 1
}
