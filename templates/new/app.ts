import { Svc, z } from 'svc'

export const app = new Svc({ title: '{{name}}' })

// A typed API route: GET /api/hello?name=Ada (routes are declared relative to the mount, /api).
// Its zod schemas type the handler, check every request and answer at run time, and describe the
// route in the OpenAPI docs (/api/docs). Pages call it through the handle it returns.
export const hello = app.route({
  method: 'GET',
  url: '/hello',
  schema: {
    querystring: z.object({ name: z.string().min(1).default('world') }),
    response: { 200: z.object({ message: z.string() }) },
  },
  handler: async (req) => ({ message: `Hello, ${req.query.name}!` }),
})

// A page at /: it reruns top to bottom on every interaction, and calls the API through the
// client it is given (svc tells it where the API is). `client.call(hello, ...)` is checked
// against the route's schemas when you run `npm run typecheck`, and its answer is checked again
// when it arrives.
app.page('/', { title: 'Hello', icon: '👋' }, async (st, client) => {
  st.title('{{name}}')
  const name = st.textInput('Your name', { value: 'world' })
  const { message } = await client.call(hello, { query: { name: name.trim() || undefined } })
  st.success(message)
})
