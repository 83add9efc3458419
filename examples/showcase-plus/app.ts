import { Svc, columnConfig, declareComponent } from 'svc'
import { GenericOIDCClient } from 'svc/auth'
import type { St } from 'svc/ui'
import { z } from 'zod'

/**
 * Store network: stores on a map and in a Plotly scatter whose box or lasso selection picks the
 * stores the map highlights and the table lists, a custom component (the example star rating) to
 * rate the selection, and the signed-in user in the sidebar; a report page with sparklines,
 * charts in table cells, cell selection, LaTeX, a Graphviz supply chain, an export made on click
 * and a store-visit form with a photo and a voice note. Run it with
 * `npm run build:example-component && svc run examples/showcase-plus/app.ts:app` (the basemap is
 * OpenFreeMap's; set SVC_UI_MAP_STYLE_URL to use your own tile server; set OIDC_ISSUER,
 * OIDC_CLIENT_ID and OIDC_CLIENT_SECRET to sign in).
 */
export const app = new Svc({ title: 'Store network', icon: '🏬' })
app.navigation({ position: 'top' })

/** Sign-in is optional here: with an IdP configured the sidebar signs in and out. */
const signIn = process.env.OIDC_ISSUER !== undefined
if (signIn) {
  const oidc = new GenericOIDCClient({
    issuer: process.env.OIDC_ISSUER!,
    clientId: process.env.OIDC_CLIENT_ID ?? '',
    clientSecret: process.env.OIDC_CLIENT_SECRET ?? '',
  })
  await oidc.loadDiscovery()
  app.attachOidcLogin(oidc)
}

/** The Vite-built star rating (examples/components/star-rating), served from its dist folder. */
const rating = declareComponent('star-rating', {
  path: new URL('../components/star-rating/dist', import.meta.url),
  args: z.object({ max: z.number().int(), label: z.string() }),
  value: z.number().int().min(0).max(5),
})

interface Store {
  id: number
  city: string
  lat: number
  lon: number
  region: 'North' | 'South' | 'West' | 'East'
  revenue: number
  visits: number
  /** Revenue of the last six months, oldest first. */
  months: number[]
}

const CITIES: readonly [string, number, number, Store['region']][] = [
  ['Hamburg', 53.5511, 9.9937, 'North'], ['Bremen', 53.0793, 8.8017, 'North'], ['Hanover', 52.3759, 9.732, 'North'],
  ['Berlin', 52.52, 13.405, 'East'], ['Leipzig', 51.3397, 12.3731, 'East'], ['Dresden', 51.0504, 13.7373, 'East'],
  ['Cologne', 50.9375, 6.9603, 'West'], ['Düsseldorf', 51.2277, 6.7735, 'West'], ['Dortmund', 51.5136, 7.4653, 'West'],
  ['Munich', 48.1351, 11.582, 'South'], ['Stuttgart', 48.7758, 9.1829, 'South'], ['Nuremberg', 49.4521, 11.0767, 'South'],
]
const REGION_COLOURS: Record<Store['region'], string> = { North: '#0ea5e9', East: '#f97316', West: '#8b5cf6', South: '#10b981' }

/** Deterministic demo data: the same stores on every start. */
const stores: Store[] = CITIES.map(([city, lat, lon, region], i) => {
  const visits = 2_000 + ((i * 7919) % 9_000)
  const revenue = Math.round(visits * (38 + ((i * 31) % 25)))
  const months = [0.8, 0.86, 0.84, 0.92, 0.95, 1.02].map((f, m) => Math.round(revenue * (f + (((i + m) * 13) % 7) / 100) / 6))
  return { id: 100 + i, city, lat, lon, region, visits, revenue, months }
})
/** Revenue per month of several stores together. */
const monthly = (rows: readonly Store[]): number[] => [0, 1, 2, 3, 4, 5].map((m) => rows.reduce((n, s) => n + s.months[m]!, 0))

app.api.get('/stores', async () => stores)

app.page('/', { title: 'Stores', icon: '🗺️' }, async (st: St, client) => {
  st.logo('data:image/svg+xml,' + encodeURIComponent(LOGO))
  account(st)
  st.title('Store network')
  const all = await (await client.get('/stores')).json<Store[]>()

  st.html('<p class="lede">Select stores in the chart with the <b>box</b> or <b>lasso</b> tool; the map and the table follow.</p>')
  const picked = st.plotlyChart(
    {
      data: (Object.keys(REGION_COLOURS) as Store['region'][]).map((region) => {
        const rows = all.filter((s) => s.region === region)
        return {
          type: 'scatter',
          mode: 'markers',
          name: region,
          x: rows.map((s) => s.visits),
          y: rows.map((s) => s.revenue),
          customdata: rows.map((s) => s.id),
          text: rows.map((s) => s.city),
          marker: { size: 14, color: REGION_COLOURS[region] },
          hovertemplate: '%{text}<br>%{x:,} visits<br>$%{y:,}<extra></extra>',
        }
      }),
      layout: { xaxis: { title: { text: 'Visits per month' } }, yaxis: { title: { text: 'Revenue ($)' } }, legend: { orientation: 'h', y: 1.12 } },
    },
    { key: 'stores', onSelect: 'rerun', selectionMode: ['box', 'lasso'], height: 380 },
  )
  const ids = new Set(picked.selection.points.map((p) => p.customdata as number))
  const chosen = ids.size > 0 ? all.filter((s) => ids.has(s.id)) : all

  const [revenue, visits, count] = st.columns(3)
  revenue.metric('Revenue', `$${chosen.reduce((n, s) => n + s.revenue, 0).toLocaleString('en-US')}`, { chartData: monthly(chosen), chartType: 'area' })
  visits.metric('Visits', chosen.reduce((n, s) => n + s.visits, 0).toLocaleString('en-US'))
  count.metric('Stores', `${chosen.length} of ${all.length}`)

  // Circles sized by revenue (radius in metres); stores outside the selection fade out.
  st.map(
    all.map((s) => ({ ...s, radius: Math.sqrt(s.revenue) * 60, colour: ids.size === 0 || ids.has(s.id) ? REGION_COLOURS[s.region] : 'rgba(148, 163, 184, 0.35)' })),
    { size: 'radius', color: 'colour', height: 420 },
  )
  st.dataframe(chosen.map(({ city, region, visits: v, revenue: r }) => ({ city, region, visits: v, revenue: r })), { hideIndex: true, useContainerWidth: true })
  if (ids.size > 0 && st.button('Celebrate the selection')) st.balloons()

  const what = ids.size > 0 ? `the ${chosen.length} selected store${chosen.length === 1 ? '' : 's'}` : 'the store network'
  const stars = st.component(rating, { max: 5, label: `Rate ${what}` }, { key: 'rating', default: 0, height: 60 })
  if (stars > 0) st.caption(`${st.user.isLoggedIn ? (st.user.name ?? st.user.sub) : 'You'} rated ${what} ${stars} of 5.`)
})

app.page('/report', { title: 'Report', icon: '📋' }, async (st: St, client) => {
  account(st)
  st.title('Store report')
  const all = await (await client.get('/stores')).json<Store[]>()
  const badges = st.container({ horizontal: true, gap: 'xsmall' })
  badges.badge('Demo data', { icon: '🧪', color: 'orange' })
  badges.badge(`${all.length} stores`, { color: 'gray' })
  badges.badge('Updated monthly', { color: 'green' })

  // One card per region, side by side, each with its six months as a sparkline.
  const regions = st.container({ horizontal: true, border: true })
  for (const region of Object.keys(REGION_COLOURS) as Store['region'][]) {
    const series = monthly(all.filter((s) => s.region === region))
    const change = Math.round(((series[5]! - series[4]!) / series[4]!) * 1000) / 10
    regions.metric(region, `$${(series[5]! / 1000).toFixed(1)}k`, { delta: `${change}%`, chartData: series })
  }

  const asOf = st.datetimeInput('Report as of', { key: 'asOf', value: '2026-06-30T18:00', max: '2026-12-31T23:45', step: 900 })
  st.caption(`Figures up to ${asOf.toISOString().slice(0, 16).replace('T', ' ')}.`)

  const picked = st.dataframe(
    all.map((s) => ({ id: s.id, city: s.city, region: s.region, trend: s.months, revenue: s.revenue, services: s.visits > 6000 ? ['pickup', 'repairs'] : ['pickup'] })),
    {
      key: 'report',
      rowKey: 'id',
      hideIndex: true,
      useContainerWidth: true,
      selectionMode: ['multi-row', 'multi-cell'],
      columnConfig: {
        id: null,
        trend: columnConfig.lineChart({ label: 'Last 6 months' }),
        revenue: columnConfig.number({ label: 'Revenue', format: 'dollar' }),
        services: columnConfig.list({ label: 'Services' }),
      },
    },
  )
  const cities = picked.rows.map((r) => r.city as string)
  if (cities.length > 0 || picked.selection.cells.length > 0) st.caption(`Selected: ${[...cities, ...picked.selection.cells.map(([row, col]) => `${all[row]!.city}'s ${col}`)].join(', ')}`)

  st.subheader('Revenue per visit')
  st.latex(String.raw`\bar r = \frac{\sum_i \text{revenue}_i}{\sum_i \text{visits}_i}`)
  // The code and what it draws, both in the expander.
  const how = st.expander('How it is computed')
  how.echo(() => {
    const perVisit = all.reduce((n, s) => n + s.revenue, 0) / all.reduce((n, s) => n + s.visits, 0)
    how.metric('Average revenue per visit', `$${perVisit.toFixed(2)}`)
  })

  st.subheader('Supply chain')
  st.graphvizChart(`digraph supply {
  rankdir=LR
  node [shape=box, style=rounded]
  ${(Object.keys(REGION_COLOURS) as Store['region'][]).map((r) => `"${r} hub" [color="${REGION_COLOURS[r]}"]`).join('\n  ')}
  Warehouse -> {"North hub" "East hub" "West hub" "South hub"}
  ${all.map((s) => `"${s.region} hub" -> "${s.city}"`).join('\n  ')}
}`)

  st.downloadButton('Export the report (CSV)', () => ['city,region,revenue', ...all.map((s) => `${s.city},${s.region},${s.revenue}`)].join('\n'), {
    fileName: 'store-report.csv',
    mime: 'text/csv',
    onClick: 'ignore',
  })

  st.subheader('File a store visit')
  const visit = st.form('visit', { clearOnSubmit: true })
  const store = visit.selectbox('Store', all.map((s) => s.city))
  const when = visit.datetimeInput('Visited', { value: null, key: 'visited' })
  const photo = visit.cameraInput('Shelf photo')
  const note = visit.audioInput('Voice note')
  if (visit.formSubmitButton('File the visit')) {
    st.success(`Visit to ${store} filed${when ? ` for ${when.toISOString().slice(0, 16).replace('T', ' ')}` : ''}.`)
    if (photo) st.image(photo.bytes, { caption: 'Shelf photo', width: 320 })
    if (note) st.audio(note.bytes, { format: 'audio/wav' })
  }

  const question = st.chatInput('Ask about the report, or attach a CSV', { acceptFile: true, fileType: ['.csv'], acceptAudio: true })
  if (question) {
    st.chatMessage('user').markdown(question.text || (question.audio ? '🎙️ A voice message' : '📎 A file'))
    const rows = question.files[0] ? question.files[0].text().trim().split('\n').length - 1 : 0
    st.chatMessage('assistant').markdown(rows > 0 ? `Your file has **${rows}** rows; the report has **${all.length}** stores.` : `The network had **$${all.reduce((n, s) => n + s.revenue, 0).toLocaleString('en-US')}** revenue this month.`)
  }
})

/** Who is signed in, in the sidebar, with the button that signs in or out. */
function account(st: St): void {
  if (st.user.isLoggedIn) {
    st.sidebar.markdown(`Signed in as **${st.user.name ?? st.user.sub}**`)
    if (st.user.email) st.sidebar.caption(st.user.email)
    if (st.sidebar.button('Sign out')) st.logout()
  } else if (signIn) {
    if (st.sidebar.button('Sign in', { type: 'primary' })) st.login()
  } else {
    st.sidebar.caption('Sign-in is off: set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET.')
  }
}

const LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" width="170" height="28"><rect y="2" width="24" height="24" rx="6" fill="#0f766e"/>' +
  '<path d="M6 19l4-6 3 4 5-8" fill="none" stroke="#fff" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/>' +
  '<text x="32" y="20" font-family="system-ui, sans-serif" font-size="15" font-weight="600" fill="#0f766e">Store network</text></svg>'
