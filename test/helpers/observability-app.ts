import { Svc } from 'svc'

/** Fixture app for the observability end-to-end test: one API route that logs through request.log. */
export const app = new Svc({ title: 'observability fixture' })

app.api.get('/hello', async (req) => {
  req.log.info({ route: 'hello' }, 'hello handler')
  return { message: 'hello' }
})
