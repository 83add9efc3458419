/**
 * The soak's app, written to a scratch folder and rewritten once a minute (a save under
 * `svc dev --reload`): an API, and a page that calls it on every run and draws a small table.
 */
export function soakAppSource(version: number): string {
  return `import { Svc } from 'svc'

export const app = new Svc({ title: 'Soak', log_level: 'warn' })
const VERSION = ${version}

app.api.get('/items', async () => Array.from({ length: 20 }, (_, i) => ({ id: i, name: 'item ' + i, version: VERSION })))
app.api.post('/echo', async (request) => request.body)

app.page('/', async (st, client) => {
  st.title('Soak v' + VERSION)
  const n = st.slider('n', { key: 'n', min: 0, max: 1000, value: 0 })
  const items = (await (await client.get('/items')).json()) as { id: number; name: string }[]
  st.text('n=' + n + ' items=' + items.length)
  st.table(items.slice(0, 5 + (n % 5)))
})
`
}
