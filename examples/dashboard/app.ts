import { Svc } from 'svc'
import { Depends, Header, parseQueryParams, type St } from 'svc/ui'
import { z } from 'zod'

/**
 * A demo operations dashboard: a small Fastify API (orders, regions) and three pages that call it
 * through the injected client. Run it with `svc run examples/dashboard/app.ts:app`.
 */
export const app = new Svc({ title: 'Acme Ops' })

interface Order {
  id: number
  region: string
  product: string
  amount: number
  status: 'paid' | 'pending' | 'refunded'
  day: string
}

const REGIONS = ['North', 'South', 'East', 'West'] as const
const PRODUCTS = ['Widget', 'Gadget', 'Doohickey', 'Gizmo'] as const

/** Deterministic demo data: the same 240 orders on every start. */
function makeOrders(): Order[] {
  let seed = 7
  const rnd = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647
  return Array.from({ length: 240 }, (_v, i) => ({
    id: 1000 + i,
    region: REGIONS[Math.floor(rnd() * REGIONS.length)]!,
    product: PRODUCTS[Math.floor(rnd() * PRODUCTS.length)]!,
    amount: Math.round(20 + rnd() * 480),
    status: rnd() < 0.8 ? 'paid' : rnd() < 0.5 ? 'pending' : 'refunded',
    day: new Date(Date.UTC(2026, 0, 1 + Math.floor(i / 8))).toISOString().slice(0, 10),
  }))
}
const orders = makeOrders()

app.api.get('/regions', async () => REGIONS)
app.api.get<{ Querystring: { region?: string } }>('/orders', async (req) =>
  req.query.region ? orders.filter((o) => o.region === req.query.region) : orders,
)
app.api.post<{ Body: { id: number } }>('/orders/refund', async (req, reply) => {
  const order = orders.find((o) => o.id === req.body.id)
  if (!order) return reply.code(404).send({ error: 'not_found' })
  order.status = 'refunded'
  return order
})

const money = (n: number): string => `$${n.toLocaleString('en-US')}`

function dailyTotals(list: Order[]): { day: string; revenue: number; refunds: number }[] {
  const byDay = new Map<string, { day: string; revenue: number; refunds: number }>()
  for (const o of list) {
    const row = byDay.get(o.day) ?? { day: o.day, revenue: 0, refunds: 0 }
    if (o.status === 'refunded') row.refunds += o.amount
    else row.revenue += o.amount
    byDay.set(o.day, row)
  }
  return [...byDay.values()]
}

function sidebar(st: St): void {
  st.sidebar.caption('Demo data, regenerated on every start.')
}

const Query = z.object({ region: z.enum(['All', ...REGIONS]).default('All') })

app.page('/', { title: 'Overview', icon: '📈', order: 0, description: 'Revenue and orders at a glance' }, async (st, client) => {
  sidebar(st)
  const query = parseQueryParams(st, Query)
  st.title('Acme Ops')
  st.caption('Live numbers from the API of this same app (`/api/orders`).')
  const regions = (await (await client.get('/regions')).json()) as string[]
  const region = st.selectbox('Region', ['All', ...regions], { key: 'region', index: ['All', ...regions].indexOf(query.region) })
  st.queryParams.set('region', region)
  const res = await client.get('/orders', { query: { region: region === 'All' ? undefined : region } })
  const list = (await res.json()) as Order[]
  const paid = list.filter((o) => o.status === 'paid')
  const refunded = list.filter((o) => o.status === 'refunded')

  const [a, b, c, d] = st.columns(4)
  a!.metric('Revenue', money(paid.reduce((s, o) => s + o.amount, 0)), { delta: '+4.2%', border: true })
  b!.metric('Orders', list.length, { delta: 12, border: true })
  c!.metric('Pending', list.filter((o) => o.status === 'pending').length, { delta: -3, deltaColor: 'inverse', border: true })
  d!.metric('Refunds', money(refunded.reduce((s, o) => s + o.amount, 0)), { delta: '-1.1%', deltaColor: 'inverse', border: true })

  const [trend, mix] = st.tabs(['Trend', 'Product mix'])
  trend!.areaChart(dailyTotals(list), { x: 'day', y: ['revenue', 'refunds'], yLabel: 'USD', color: ['#4f46e5', '#f43f5e'] })
  const mixRows = PRODUCTS.map((p) => ({ product: p, orders: list.filter((o) => o.product === p).length }))
  const [byProduct, byStatus] = mix!.columns([3, 2])
  byProduct!.barChart(mixRows, { x: 'product', y: 'orders', color: '#0ea5e9', height: 240 })
  // Any Vega-Lite spec: order amounts by status, as a donut.
  byStatus!.vegaLiteChart(
    {
      mark: { type: 'arc', innerRadius: 55, tooltip: true },
      encoding: {
        theta: { field: 'amount', type: 'quantitative', aggregate: 'sum', title: 'USD' },
        color: { field: 'status', type: 'nominal', title: null, legend: { orient: 'bottom' } },
      },
    },
    { data: list.map((o) => ({ status: o.status, amount: o.amount })), height: 240 },
  )

  st.subheader('Latest orders')
  st.dataframe(list.slice().reverse(), { pageSize: 10, key: 'latest' })
  return { pageTitle: `Overview · ${region}`, layout: 'wide' }
})

app.page('/orders', { title: 'Orders', icon: '🧾', order: 1, tags: ['ops'] }, async (st, client) => {
  sidebar(st)
  st.title('Orders')
  const list = (await (await client.get('/orders')).json()) as Order[]
  const filters = st.expander('Filters', { expanded: true })
  const statuses = filters.multiselect('Status', ['paid', 'pending', 'refunded'], { key: 'status', default: ['paid', 'pending'] })
  const [lo, hi] = filters.slider('Amount', { key: 'amount', min: 0, max: 500, step: 10, value: [0, 500] })
  const search = filters.textInput('Product contains', { key: 'q', placeholder: 'e.g. gad' })
  const shown = list.filter(
    (o) => statuses.includes(o.status) && o.amount >= lo && o.amount <= hi && o.product.toLowerCase().includes(search.toLowerCase()),
  )
  st.info(`**${shown.length}** of ${list.length} orders match.`)
  st.dataframe(shown, { pageSize: 15, key: 'orders' })
  st.downloadButton('Download CSV', toCsv(shown), { fileName: 'orders.csv', mime: 'text/csv', icon: '⬇️', key: 'csv' })

  st.divider()
  st.subheader('Refund an order')
  const form = st.form('refund', { clearOnSubmit: true })
  const id = form.numberInput('Order id', { key: 'refund_id', value: null, min: 1000, step: 1 })
  const reason = form.textArea('Reason', { key: 'refund_reason', placeholder: 'Why?' })
  if (form.formSubmitButton('Refund', { key: 'refund_go' })) {
    if (id === null || reason.trim() === '') st.warning('Enter an order id and a reason.')
    else {
      const r = await client.post('/orders/refund', { json: { id } })
      if (r.ok) st.toast(`Order ${id} refunded`, { icon: '✅' })
      else st.error(`Order ${id} not found.`)
    }
  }
})

function toCsv(list: Order[]): string {
  const head = 'id,region,product,amount,status,day'
  return [head, ...list.map((o) => [o.id, o.region, o.product, o.amount, o.status, o.day].join(','))].join('\n')
}

const now = (): Date => new Date()

app.page(
  '/settings',
  { title: 'Settings', icon: '⚙️', order: 2, inject: { startedAt: Depends(now), lang: Header('accept-language') } },
  async (st, _client, deps) => {
    sidebar(st)
    st.title('Settings')
    st.markdown('Preferences live in `st.sessionState`: they survive reruns and a WebSocket reconnect.')
    const theme = st.radio('Chart palette', ['Indigo', 'Sky', 'Rose'], { key: 'palette', horizontal: true })
    const dense = st.toggle('Compact tables', { key: 'dense' })
    const notify = st.checkbox('Email me a daily summary', { key: 'notify' })
    const from = st.dateInput('Report start', { key: 'from', value: '2026-01-01' })
    if (st.button('Save', { key: 'save', type: 'primary' })) {
      await st.spinner('Saving…', () => new Promise((r) => setTimeout(r, 300)))
      st.success(`Saved: **${theme}**, compact ${dense ? 'on' : 'off'}, summary ${notify ? 'on' : 'off'}, from ${from.toISOString().slice(0, 10)}.`)
    }
    const about = st.expander('About this session')
    about.json({ language: deps.lang ?? null, renderedAt: deps.startedAt, requestId: st.context.requestId, state: st.sessionState })
    st.code(`app.page('/settings', { inject: { lang: Header('accept-language') } }, (st, client, deps) => ...)`, { language: 'ts' })
    st.link('API docs', '/api/docs', { newTab: true, icon: '📘' })
  },
)
