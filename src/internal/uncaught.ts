import type { Logger } from 'pino'

/**
 * svc's policy for an error nothing caught (an exception, or a rejected promise nobody awaited):
 * the process does not go on, since its state is unknown, but it says so first. One `fatal`
 * record on the process's own logger names the error and what happens next; then Node's default
 * runs (the stack on stderr, exit code 1) and whoever owns the process reacts: the supervisor
 * restarts a gateway worker, stops the tree when the page server dies, and its children stop
 * when the supervisor dies. Request handlers catch their own errors (500 JSON), so a request
 * never gets this far. Listening on `uncaughtExceptionMonitor` keeps Node's exit behaviour.
 */
export function logUncaught(logger: Logger, consequence: string): void {
  process.on('uncaughtExceptionMonitor', (err, origin) => {
    const what = origin === 'unhandledRejection' ? 'unhandled promise rejection' : 'uncaught exception'
    logger.fatal({ err, origin }, `${what}; ${consequence}`)
  })
}
