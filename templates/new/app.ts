import { Svc } from 'svc'

export const app = new Svc({ title: '{{name}}' })

// The API: GET /api/hello?name=Ada (routes are declared relative to the mount, /api)
app.api.get('/hello', async (req) => {
  const { name = 'world' } = req.query as { name?: string }
  return { message: `Hello, ${name}!` }
})

// A page at /: it reruns top to bottom on every interaction, and calls the API through the
// client it is given (svc tells it where the API is).
app.page('/', { title: 'Hello', icon: '👋' }, async (st, client) => {
  st.title('{{name}}')
  const name = st.textInput('Your name', { value: 'world' })
  const res = await client.get('/hello', { query: { name } })
  const { message } = await res.json<{ message: string }>()
  st.success(message)
})
