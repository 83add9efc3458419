import { Svc } from 'svc'
import { setTraceHook } from 'svc/tracing'
import { otelTraceHook } from './otel-trace-hook.js'

// Start your OpenTelemetry SDK before this module loads (see README.md), then install the hook.
// The app module is loaded in every gateway worker, so each worker gets the hook.
setTraceHook(otelTraceHook())

export const app = new Svc({ title: 'svc with OpenTelemetry' })

app.api.get('/hello', async () => ({ message: 'hello, traced' }))
