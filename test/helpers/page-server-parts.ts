import type { Logger } from 'pino'
import { onTestFinished } from 'vitest'
import type { Svc } from '../../src/app.js'
import { getClient } from '../../src/client/api-client.js'
import { MediaStore } from '../../src/ui/media-store.js'
import { pageSideOf, type PageApp } from '../../src/ui/page-app.js'
import { PageIndex } from '../../src/ui/page-directory.js'
import { LocalSessions, type SessionHost } from '../../src/ui/server/local-sessions.js'
import type { PageSnapshots } from '../../src/ui/server/session-snapshots.js'
import { ClientAssets, clientDir } from '../../src/ui/server/static-files.js'
import { UiServer } from '../../src/ui/server/ui-server.js'

/** The page server's parts, built in the test's process as the page server builds them (src/ui/server/sidecar.ts). */

/** Sessions of `app` in this thread, snapshots written to `snapshots`. */
export function localSessions(app: Svc, snapshots: PageSnapshots, logger: Logger): LocalSessions {
  return new LocalSessions({
    app: pageSideOf(app),
    client: getClient(app),
    media: new MediaStore(),
    logger,
    basePath: '',
    ttlMs: 60_000,
    runTimeoutMs: 0,
    maxPendingUploadBytes: 0,
    showErrorDetails: true,
    overrides: {},
    snapshots,
  })
}

/** A listening page server on loopback with no pages and the sessions given; destroyed when the test ends. */
export async function startUiServer(settings: PageApp['settings'], sessions: SessionHost, logger: Logger): Promise<{ server: UiServer; base: string }> {
  const server = new UiServer({
    site: { settings, pages: new PageIndex([]) },
    sessions,
    pool: null,
    media: new MediaStore(),
    basePath: '',
    host: '127.0.0.1',
    port: 0,
    logger,
    assets: new ClientAssets(clientDir()),
    maxMessageBytes: 1024 * 1024,
    maxUploadBytes: 1024 * 1024,
  })
  onTestFinished(() => server.destroy())
  return { server, base: `http://127.0.0.1:${await server.start()}` }
}
