import { cacheData, cacheResource, columnConfig, isApiCallError, Svc, z } from 'svc'
import { ApiClient } from 'svc/client'
import { Depends, Header, parseQueryParams, type St } from 'svc/ui'

/**
 * A demo operations dashboard: a small typed API (orders, regions, targets, a live feed) and four
 * pages that call it through the route handles, so the compiler checks every call. Run it with
 * `svc run examples/dashboard/app.ts:app`; the API's docs are at /api/docs.
 */
export const app = new Svc({ title: 'Acme Ops' })

const REGIONS = ['North', 'South', 'East', 'West'] as const
const PRODUCTS = ['Widget', 'Gadget', 'Doohickey', 'Gizmo'] as const
const CUSTOMERS = ['Globex', 'Initech', 'Umbrella', 'Hooli', 'Vandelay', 'Stark', 'Wayne', 'Acme Retail'] as const
const OWNERS = ['Ada', 'Grace', 'Linus', 'Margaret'] as const

const Region = z.enum(REGIONS)
const Order = z
  .object({
    id: z.number().int().positive(),
    region: Region,
    product: z.string(),
    customer: z.string(),
    amount: z.number(),
    discount: z.number(),
    fulfilled: z.number().min(0).max(1),
    status: z.enum(['paid', 'pending', 'refunded']),
    day: z.iso.date(),
    link: z.string(),
  })
  .meta({ id: 'Order' })
type Order = z.output<typeof Order>

const Target = z.object({ region: Region, owner: z.enum(OWNERS), target: z.number().min(0), stretch: z.boolean(), review: z.iso.date() }).meta({ id: 'Target' })
type Target = z.output<typeof Target>

const NotFound = z.object({ error: z.literal('not_found'), message: z.string() })

/** Deterministic demo data: the same 240 orders on every start. */
function makeOrders(): Order[] {
  let seed = 7
  const rnd = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647
  return Array.from({ length: 240 }, (_v, i) => {
    const status: Order['status'] = rnd() < 0.8 ? 'paid' : rnd() < 0.5 ? 'pending' : 'refunded'
    return {
      id: 1000 + i,
      region: REGIONS[Math.floor(rnd() * REGIONS.length)]!,
      product: PRODUCTS[Math.floor(rnd() * PRODUCTS.length)]!,
      customer: CUSTOMERS[Math.floor(rnd() * CUSTOMERS.length)]!,
      amount: Math.round(20 + rnd() * 480),
      discount: Math.round(rnd() * 4) * 0.05,
      fulfilled: status === 'pending' ? Math.round(rnd() * 8) / 10 : 1,
      status,
      day: new Date(Date.UTC(2026, 0, 1 + Math.floor(i / 8))).toISOString().slice(0, 10),
      link: `/api/orders/${1000 + i}`,
    }
  })
}
const orders = makeOrders()
const targets: Target[] = REGIONS.map((region, i) => ({
  region,
  owner: OWNERS[i]!,
  target: [12000, 10000, 12500, 11500][i]!,
  stretch: i === 0,
  review: `2026-02-${String(2 + i * 7).padStart(2, '0')}`,
}))

export const listRegions = app.route({
  method: 'GET',
  url: '/regions',
  schema: { summary: 'The sales regions', response: { 200: z.array(Region) } },
  handler: async () => [...REGIONS],
})

export const listOrders = app.route({
  method: 'GET',
  url: '/orders',
  schema: { summary: 'Orders, of one region or all', querystring: z.object({ region: Region.optional() }), response: { 200: z.array(Order) } },
  handler: async (req) => (req.query.region ? orders.filter((o) => o.region === req.query.region) : orders),
})

export const getOrder = app.route({
  method: 'GET',
  url: '/orders/:id',
  schema: { summary: 'One order', params: z.object({ id: z.coerce.number().int() }), response: { 200: Order, 404: NotFound } },
  handler: async (req, reply) => {
    const order = orders.find((o) => o.id === req.params.id)
    return order ?? reply.code(404).send({ error: 'not_found', message: `no order ${req.params.id}` })
  },
})

export const refundOrder = app.route({
  method: 'POST',
  url: '/orders/refund',
  schema: { summary: 'Refund an order', body: z.object({ id: z.number().int() }), response: { 200: Order, 404: NotFound } },
  handler: async (req, reply) => {
    const order = orders.find((o) => o.id === req.body.id)
    if (!order) return reply.code(404).send({ error: 'not_found', message: `no order ${req.body.id}` })
    order.status = 'refunded'
    return order
  },
})

export const getTargets = app.route({
  method: 'GET',
  url: '/targets',
  schema: { summary: 'Monthly targets per region', response: { 200: z.array(Target) } },
  handler: async () => targets,
})

export const saveTargets = app.route({
  method: 'PUT',
  url: '/targets',
  schema: { summary: 'Replace the monthly targets', body: z.array(Target), response: { 200: z.array(Target) } },
  handler: async (req) => {
    targets.splice(0, targets.length, ...req.body)
    return targets
  },
})

/** A live feed for the fragment demo: numbers that move with the clock. */
export const liveFeed = app.route({
  method: 'GET',
  url: '/live',
  schema: {
    summary: 'Live checkout numbers',
    response: { 200: z.object({ at: z.iso.datetime(), perMinute: z.number().int(), queue: z.number().int().min(0), latencyMs: z.number().int() }) },
  },
  handler: async () => {
    const t = Date.now() / 1000
    return {
      at: new Date().toISOString(),
      perMinute: Math.round(14 + 6 * Math.sin(t / 7) + 3 * Math.sin(t / 2.3)),
      queue: Math.max(0, Math.round(9 + 7 * Math.sin(t / 5))),
      latencyMs: Math.round(180 + 60 * Math.cos(t / 3)),
    }
  },
})

/** One API client for the cached loaders (they run outside any page, so they cannot use the injected one). */
const api = cacheResource(() => new ApiClient())
/** Orders per region filter, shared by every session for 30 s; a refund clears it. */
const loadOrders = cacheData(async (region: 'All' | Order['region']) => api().call(listOrders, { query: { region: region === 'All' ? undefined : region } }), {
  ttl: 30,
  maxEntries: 10,
})

const money = (n: number): string => `$${n.toLocaleString('en-US')}`
const SIZES = ['$0', '$100', '$200', '$300', '$400', '$500'] as const
const dollars = (s: string): number => Number(s.slice(1))

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

/** The sidebar of every page; it counts page runs, which fragments and dialogs do not cause. */
function sidebar(st: St): void {
  st.sessionState.pageRuns = (st.sessionState.pageRuns ?? 0) + 1
  st.sidebar.caption('Demo data, regenerated on every start.')
  st.sidebar.caption(`Page runs this session: ${st.sessionState.pageRuns}`)
}

const Query = z.object({ region: z.enum(['All', ...REGIONS]).default('All') })

app.page('/', { title: 'Overview', icon: '📈', order: 0, description: 'Revenue and orders at a glance' }, async (st) => {
  sidebar(st)
  const query = parseQueryParams(st, Query)
  st.title('Acme Ops')
  st.caption('Live numbers from the API of this same app (`/api/orders`), cached for 30 s.')
  const regions = ['All', ...REGIONS] as const
  const [f1, f2, f3, f4] = st.columns([2, 3, 4, 4], { gap: 'medium' })
  const region = f1!.selectbox('Region', regions, { key: 'region', index: regions.indexOf(query.region) })
  st.queryParams.set('region', region)
  const period = f2!.segmentedControl('Period', ['7 days', '14 days', 'All'], { key: 'period', default: 'All' }) ?? 'All'
  const statuses = f3!.pills('Status', ['paid', 'pending', 'refunded'], { key: 'statuses', selectionMode: 'multi', default: ['paid', 'pending', 'refunded'] })
  const [lo, hi] = f4!.selectSlider('Order size', SIZES, { key: 'size', value: ['$0', '$500'] })

  const all = await loadOrders(region)
  const lastDay = all.reduce((m, o) => (o.day > m ? o.day : m), '')
  const since = period === 'All' ? '' : new Date(Date.parse(lastDay) - (Number.parseInt(period) - 1) * 86_400_000).toISOString().slice(0, 10)
  const list = all.filter((o) => o.day >= since && statuses.includes(o.status) && o.amount >= dollars(lo) && o.amount <= dollars(hi))
  const paid = list.filter((o) => o.status === 'paid')
  const refunded = list.filter((o) => o.status === 'refunded')

  const [a, b, c, d] = st.columns(4)
  a!.metric('Revenue', money(paid.reduce((s, o) => s + o.amount, 0)), { delta: '+4.2%', border: true })
  b!.metric('Orders', list.length, { delta: 12, border: true })
  c!.metric('Pending', list.filter((o) => o.status === 'pending').length, { delta: -3, deltaColor: 'inverse', border: true })
  d!.metric('Refunds', money(refunded.reduce((s, o) => s + o.amount, 0)), { delta: '-1.1%', deltaColor: 'inverse', border: true })

  const [trend, mix] = st.tabs(['Trend', 'Product mix'])
  trend!.areaChart(dailyTotals(list), { x: 'day', y: ['revenue', 'refunds'], yLabel: 'USD', height: 260 })
  const mixRows = PRODUCTS.map((p) => ({ product: p, orders: list.filter((o) => o.product === p).length }))
  const [byProduct, byStatus] = mix!.columns([3, 2])
  byProduct!.barChart(mixRows, { x: 'product', y: 'orders', height: 240 })
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

  const [live, notes] = st.columns([3, 2], { gap: 'large' })
  // The live panel reruns alone every 2 s: the page above is not run or sent again.
  await live!.fragment(async (f) => {
    const feed = await api().call(liveFeed)
    f.sessionState.liveTicks = (f.sessionState.liveTicks ?? 0) + 1
    const box = f.container({ border: true })
    box.subheader('Live')
    const [m1, m2, m3] = box.columns(3)
    m1!.metric('Checkouts / min', feed.perMinute)
    m2!.metric('Queue', feed.queue, { delta: feed.queue > 12 ? 'busy' : null, deltaColor: 'inverse' })
    m3!.metric('p95 latency', `${feed.latencyMs} ms`)
    box.caption(`Updated ${feed.at.slice(11, 19)} UTC · refresh #${f.sessionState.liveTicks}`)
  }, { runEvery: 2 })
  notes!.markdown(
    [
      '#### On-call notes',
      '| Queue | Action |',
      '| :-- | :-- |',
      '| under 12 | nothing to do |',
      '| 12 or more | page the **fulfilment** team |',
      '',
      'Refunds over $400 need a second approver, see the [refund policy](https://example.com/policies/refunds).',
    ].join('\n'),
  )
  return { pageTitle: `Overview · ${region}`, layout: 'wide' }
})

app.page('/orders', { title: 'Orders', icon: '🧾', order: 1, tags: ['ops'] }, async (st) => {
  sidebar(st)
  st.title('Orders')
  if (st.sessionState.flash) {
    st.toast(st.sessionState.flash, { icon: '✅' })
    delete st.sessionState.flash
  }
  const list = await loadOrders('All')
  const filters = st.expander('Filters', { expanded: true })
  const [fa, fb] = filters.columns(2)
  const statuses = fa!.multiselect('Status', ['paid', 'pending', 'refunded'], { key: 'status', default: ['paid', 'pending', 'refunded'] })
  const [lo, hi] = fa!.slider('Amount', { key: 'amount', min: 0, max: 500, step: 10, value: [0, 500] })
  const search = fb!.textInput('Product contains', { key: 'q', placeholder: 'e.g. gad' })
  const since = fb!.dateInput('Since', { key: 'since', value: '2026-01-01', min: '2026-01-01', max: '2026-01-30' })
  const from = since.toISOString().slice(0, 10)
  const shown = list.filter(
    (o) => statuses.includes(o.status) && o.amount >= lo && o.amount <= hi && o.day >= from && o.product.toLowerCase().includes(search.toLowerCase()),
  )
  st.info(`**${shown.length}** of ${list.length} orders match.`)

  const [table, detail] = st.columns([4, 1], { gap: 'medium' })
  const picked = table!.dataframe(shown, {
    key: 'orders',
    // The selection follows its order through filters, refunds and refreshed data.
    rowKey: 'id',
    pageSize: 12,
    selectionMode: 'single-row',
    useContainerWidth: true,
    columnOrder: ['id', 'day', 'customer', 'product', 'amount', 'discount', 'fulfilled', 'status', 'link'],
    columnConfig: {
      id: columnConfig.number({ label: 'Order', format: '%d', pinned: true }),
      day: columnConfig.date({ label: 'Date', format: 'DD MMM' }),
      customer: 'Customer',
      product: 'Product',
      amount: columnConfig.number({ label: 'Amount', format: 'dollar' }),
      discount: columnConfig.number({ label: 'Discount', format: 'percent' }),
      fulfilled: columnConfig.progress({ label: 'Fulfilled', min: 0, max: 1 }),
      status: 'Status',
      link: columnConfig.link({ label: 'API', displayText: 'JSON' }),
    },
  })
  table!.downloadButton('Download CSV', toCsv(shown), { fileName: 'orders.csv', mime: 'text/csv', icon: '⬇️', key: 'csv' })

  // Rows are typed from the data: `order` is an Order.
  const order = picked.rows[0]
  const refund = await st.dialog('Confirm refund', async (dlg, handle) => {
    if (!order) return handle.close()
    dlg.markdown(`Refund **${money(order.amount)}** to **${order.customer}** for order #${order.id}?`)
    const reason = dlg.selectbox('Reason', ['Damaged in transit', 'Wrong item', 'Customer changed mind'], { key: 'refund_reason' })
    const notify = dlg.checkbox('Email the customer', { key: 'refund_notify', value: true })
    dlg.caption(`The customer ${notify ? 'gets an email' : 'is not emailed'}; reason: *${reason}*.`)
    const [ok, cancel] = dlg.columns(2)
    if (cancel!.button('Cancel', { key: 'refund_cancel' })) handle.close()
    if (ok!.button('Refund', { key: 'refund_go', type: 'primary' })) {
      try {
        await api().call(refundOrder, { body: { id: order.id } })
        st.sessionState.flash = `Order ${order.id} refunded`
      } catch (err) {
        if (!isApiCallError(err, refundOrder) || err.status !== 404) throw err
        st.sessionState.flash = `Order ${order.id} not found`
      }
      loadOrders.clear()
      handle.close()
    }
  }, { key: 'refund' })

  const panel = detail!.container({ border: true })
  if (!order) {
    panel.subheader('Details')
    panel.caption('Select an order in the table to see it here.')
  } else {
    panel.subheader(`Order #${order.id}`)
    panel.metric('Amount', money(order.amount), { delta: order.discount ? `-${Math.round(order.discount * 100)}% discount` : null, deltaColor: 'off' })
    panel.markdown(
      `**${order.customer}** · ${order.region}  \n${order.product} · ${order.day}  \nStatus: \`${order.status}\``,
    )
    panel.progress(order.fulfilled, `Fulfilled ${Math.round(order.fulfilled * 100)}%`)
    if (panel.button('Refund…', { key: 'refund_open', disabled: order.status === 'refunded', useContainerWidth: true })) await refund.open()
  }
  return { layout: 'wide' }
})

function toCsv(list: Order[]): string {
  const head = 'id,region,product,customer,amount,status,day'
  return [head, ...list.map((o) => [o.id, o.region, o.product, o.customer, o.amount, o.status, o.day].join(','))].join('\n')
}

app.page('/targets', { title: 'Targets', icon: '🎯', order: 2, tags: ['ops'] }, async (st, client) => {
  sidebar(st)
  st.title('Targets')
  st.caption('Edit the monthly targets in place, then save them to the API.')
  const saved = await client.call(getTargets)
  const edited = st.dataEditor(saved, {
    key: 'targets',
    rowKey: 'region',
    disabled: ['region'],
    useContainerWidth: true,
    columnConfig: {
      region: columnConfig.column({ label: 'Region', pinned: true }),
      owner: columnConfig.selectbox({ label: 'Owner', options: [...OWNERS] }),
      target: columnConfig.number({ label: 'Target', format: 'dollar', min: 0, step: 500 }),
      stretch: columnConfig.checkbox({ label: 'Stretch goal' }),
      review: columnConfig.date({ label: 'Review on', format: 'DD MMM YYYY' }),
    },
  })
  const actual = new Map<string, number>()
  for (const o of await loadOrders('All')) if (o.status === 'paid') actual.set(o.region, (actual.get(o.region) ?? 0) + o.amount)
  const rows = edited.map((t) => ({ region: t.region, target: t.target, actual: actual.get(t.region) ?? 0 }))
  const onTrack = rows.filter((r) => r.actual >= r.target).length
  const [m1, m2, m3] = st.columns(3)
  m1!.metric('Total target', money(rows.reduce((s, r) => s + r.target, 0)), { border: true })
  m2!.metric('Revenue so far', money(rows.reduce((s, r) => s + r.actual, 0)), { border: true })
  m3!.metric('Regions on track', `${onTrack} of ${rows.length}`, { border: true })
  // Bars for revenue with a tick for each target: a layered Vega-Lite spec.
  st.vegaLiteChart(
    {
      encoding: { x: { field: 'region', type: 'nominal', title: null, axis: { labelAngle: 0 } } },
      layer: [
        {
          mark: { type: 'bar', tooltip: true, cornerRadiusEnd: 3 },
          encoding: { y: { field: 'actual', type: 'quantitative', title: 'USD' }, color: { datum: 'revenue', title: null, legend: { orient: 'top' } } },
        },
        // Colours by series name: the page theme's chart palette, in light and dark.
        { mark: { type: 'tick', thickness: 4, size: 70, tooltip: true }, encoding: { y: { field: 'target', type: 'quantitative' }, color: { datum: 'target' } } },
      ],
    },
    { data: rows, height: 220 },
  )
  if (st.button('Save targets', { key: 'save_targets', type: 'primary' })) {
    try {
      await client.call(saveTargets, { body: edited })
      st.toast('Targets saved', { icon: '💾' })
    } catch (err) {
      // The route refuses what its schema does not allow (a cleared date): say which cell.
      if (!isApiCallError(err, saveTargets) || err.status !== 400) throw err
      st.error(`Not saved: ${err.issues.map((i) => `row ${Number(i.path[0]) + 1}, ${i.path.slice(1).join('.')}: ${i.message}`).join('; ')}`)
    }
  }
  return { layout: 'wide' }
})

const now = (): Date => new Date()

app.page(
  '/settings',
  { title: 'Settings', icon: '⚙️', order: 3, inject: { startedAt: Depends(now), lang: Header('accept-language') } },
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
