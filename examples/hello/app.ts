import { Svc } from 'svc'

/** The demo app: an API route and a dashboard page that calls it, on one port. */
export const app = new Svc({ title: 'Hello svc' })

app.api.get('/hello', async (req) => {
  const name = (req.query as { name?: string }).name ?? 'world'
  return { message: `Hello, ${name}!` }
})

app.page('/', { title: 'Hello', icon: '👋' }, async (st, client) => {
  st.title('Hello svc')
  const name = st.textInput('Your name', { value: 'world' })
  const res = await client.get(`/hello?name=${encodeURIComponent(name)}`)
  const body = (await res.json()) as { message: string }
  st.success(body.message)
  if (st.button('Celebrate')) st.toast('🎉 Celebrated!')
})
