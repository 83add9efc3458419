/**
 * Imported first by a process main that loads the app and then lives on (the gateway worker):
 * esbuild reads this when it loads. Its synchronous calls (tsx's in-thread hooks on Node 22+,
 * the format hook) then run as one-shot processes, waited for at once, instead of in a worker
 * thread of its own that holds an isolate for the process's life and whose service process no
 * thread could reap once the app is loaded and the transforms are stopped (transform-service.ts).
 * Page threads get the same through their `env` (src/ui/server/page-thread.ts).
 */
process.env.ESBUILD_WORKER_THREADS = '0'
