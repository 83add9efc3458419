// Fixture sidecar for the observability end-to-end test (run as ui_command with {port}): a plain
// HTTP server that logs one svc-shaped JSON line per request, joined by the gateway's X-Request-ID.
// GET /call-api calls the API through the public port with the same request ID, as a page would.
import { createServer } from 'node:http'
import { pino } from 'pino'
import { childLogger, jsonLogOptions, redactUrl, runWithRequestId } from 'svc/logging'

const logger = childLogger(pino(jsonLogOptions('info'), pino.destination({ dest: 1, sync: true })), 'svc.ui')
const apiBase = process.env.SVC_INTERNAL_API_BASE ?? ''

const server = createServer((req, res) => {
  const header = req.headers['x-request-id']
  const requestId = typeof header === 'string' ? header : undefined
  runWithRequestId(requestId, async () => {
    logger.info({ path: redactUrl(req.url ?? '/'), traceparent: req.headers.traceparent ?? null }, 'sidecar request')
    let body = 'ui ok'
    if (req.url === '/call-api') {
      const api = await fetch(`${apiBase}/hello`, { headers: requestId ? { 'x-request-id': requestId } : {} })
      body = await api.text()
    }
    res.writeHead(200, { 'content-type': 'text/plain' })
    res.end(body)
  })
})
server.listen(Number(process.argv[2]), '127.0.0.1')
process.on('SIGTERM', () => server.close(() => process.exit(0)))
