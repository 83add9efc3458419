import { setTimeout as sleep } from 'node:timers/promises'
import { Svc, z, type St, type TaskContext } from 'svc'
import { GenericOIDCClient } from 'svc/auth'

/**
 * A long export with progress and cancel, and preferences kept per user. The export is a task
 * (`app.task`): it pages through the app's own orders API on the page server's task threads, far
 * past the 30 s a page run may take, while a fragment shows its progress and the last rows it
 * wrote. A reload or a lost connection gets the running export back. The export settings are
 * kept per signed-in user (`st.userStorage`), or in this browser (`st.localStorage`) without a
 * login. Run it with `svc run examples/exports/app.ts:app` (README.md: with a login).
 */
export const app = new Svc({ title: 'Exports' })

const REGIONS = ['emea', 'amer', 'apac'] as const
const Order = z.object({ id: z.number().int(), region: z.enum(REGIONS), customer: z.string(), total: z.number(), placedAt: z.string() })
type Order = z.infer<typeof Order>
const PAGE_SIZE = 50
/** Each page takes this long to answer: slow enough to watch the export. */
const PAGE_DELAY_MS = Number(process.env.EXPORT_PAGE_DELAY_MS ?? 300)

/** A page of synthetic orders, as a slow reporting database would answer it. */
export const listOrders = app.route({
  method: 'GET',
  url: '/orders',
  schema: { querystring: z.object({ region: z.enum(REGIONS), page: z.coerce.number().int().min(0) }), response: { 200: z.array(Order) } },
  async handler(req) {
    await sleep(PAGE_DELAY_MS)
    const { region, page } = req.query
    return Array.from({ length: PAGE_SIZE }, (_, i) => {
      const id = page * PAGE_SIZE + i + 1
      return { id, region, customer: `Customer ${(id * 7919) % 997}`, total: Math.round(((id * 104729) % 100_000) / 10) / 10, placedAt: new Date(Date.UTC(2026, 0, 1) + id * 3_600_000).toISOString() }
    })
  },
})

const Prefs = z.object({ region: z.enum(REGIONS), delimiter: z.enum([',', ';', 'tab']), header: z.boolean(), pages: z.number().int().min(1).max(200) })
type Prefs = z.infer<typeof Prefs>
const DEFAULTS: Prefs = { region: 'emea', delimiter: ',', header: true, pages: 40 }

/** Progress the page shows while the export runs: rows so far and the last lines written. */
interface ExportProgress {
  rows: number
  lastLines: string[]
}

export const exportOrders = app.task('export-orders', async (prefs: Prefs, task: TaskContext<ExportProgress>) => {
  const sep = prefs.delimiter === 'tab' ? '\t' : prefs.delimiter
  const lines = prefs.header ? [['id', 'region', 'customer', 'total', 'placed_at'].join(sep)] : []
  for (let page = 0; page < prefs.pages; page++) {
    // Cancelled from the page (or the session ended): stop between pages.
    task.signal.throwIfAborted()
    const orders: Order[] = await task.client.call(listOrders, { query: { region: prefs.region, page } })
    for (const o of orders) lines.push([o.id, o.region, o.customer, o.total.toFixed(2), o.placedAt].join(sep))
    task.progress((page + 1) / prefs.pages, `Page ${page + 1} of ${prefs.pages}`)
    task.partial({ rows: lines.length - (prefs.header ? 1 : 0), lastLines: lines.slice(-3) })
  }
  return { csv: `${lines.join('\n')}\n`, rows: lines.length - (prefs.header ? 1 : 0), fileName: `orders-${prefs.region}.csv`, finishedAt: new Date() }
})

// With OIDC_ISSUER set (examples/auth/README.md has a local IdP), visitors sign in and their
// export settings follow them to every browser; without, each browser keeps its own.
const oidcIssuer = process.env.OIDC_ISSUER
if (oidcIssuer) {
  const oidc = new GenericOIDCClient({ issuer: oidcIssuer, clientId: process.env.OIDC_CLIENT_ID ?? '', clientSecret: process.env.OIDC_CLIENT_SECRET ?? '' })
  await oidc.loadDiscovery()
  app.attachOidcLogin(oidc)
}

/** The visitor's export settings: the signed-in user's, else this browser's, else the defaults. */
async function loadPrefs(st: St): Promise<Prefs> {
  const saved = st.user.isLoggedIn ? await st.userStorage.get('export-prefs', Prefs) : st.localStorage.get('export-prefs', Prefs)
  return saved ?? DEFAULTS
}

async function savePrefs(st: St, prefs: Prefs): Promise<void> {
  if (st.user.isLoggedIn) await st.userStorage.set('export-prefs', prefs)
  else st.localStorage.set('export-prefs', prefs)
}

app.page('/', { title: 'Export orders', icon: '📦' }, async (st) => {
  st.title('Export orders')
  const saved = await loadPrefs(st)
  if (st.user.isLoggedIn) {
    st.caption(`Signed in as ${st.user.name ?? st.user.sub}: your export settings are kept for you on every browser.`)
    if (st.button('Sign out')) st.logout()
  } else {
    st.caption('Your export settings are kept in this browser.' + (oidcIssuer ? ' Sign in to keep them on every browser.' : ''))
    if (oidcIssuer && st.button('Sign in')) st.login()
  }

  const job = st.task('export', exportOrders)
  const [left, right] = st.columns(2)
  const prefs: Prefs = {
    region: left!.selectbox('Region', REGIONS, { index: REGIONS.indexOf(saved.region), key: 'region', disabled: job.running }),
    delimiter: left!.radio('Delimiter', [',', ';', 'tab'] as const, { index: [',', ';', 'tab'].indexOf(saved.delimiter), horizontal: true, key: 'delimiter', disabled: job.running }),
    header: right!.checkbox('Header row', { value: saved.header, key: 'header', disabled: job.running }),
    pages: right!.slider('Pages of 50 orders', { min: 1, max: 200, value: saved.pages, key: 'pages', disabled: job.running }),
  }
  if (JSON.stringify(prefs) !== JSON.stringify(saved)) await savePrefs(st, prefs)

  if (!job.running && st.button(job.status === 'idle' ? 'Export' : 'Export again', { type: 'primary' })) job.start(prefs)

  // Progress and the last lines written rerun this fragment alone, a few times a second.
  st.fragment((f) => {
    const live = f.task('export', exportOrders)
    if (!live.running) return
    f.progress(live.progress ?? 0, live.message ?? 'Waiting for a free task slot…')
    if (live.partial) {
      f.caption(`${live.partial.rows.toLocaleString(st.context.locale ?? 'en')} rows so far`)
      f.code(live.partial.lastLines.join('\n'))
    }
    if (f.button('Cancel export')) live.cancel()
  })

  if (job.status === 'done') {
    const when = job.result.finishedAt.toLocaleTimeString(st.context.locale ?? 'en', { timeZone: st.context.timezone ?? 'UTC' })
    st.success(`Exported ${job.result.rows.toLocaleString(st.context.locale ?? 'en')} orders at ${when}${st.context.timezone ? ` (${st.context.timezone})` : ' UTC'}.`)
    st.downloadButton('Download CSV', job.result.csv, { fileName: job.result.fileName, mime: 'text/csv' })
  }
  if (job.status === 'cancelled') st.info('Export cancelled.')
  if (job.status === 'error') st.error(`The export failed: ${job.error.message}`)
})
