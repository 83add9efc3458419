import { setTimeout as sleep } from 'node:timers/promises'
import { Svc, z } from 'svc'

/**
 * A chat page that streams its answers from an API route of the same app, plus a page of
 * dialogs, popovers and status boxes. Run it with `svc run examples/chat/app.ts:app`.
 */
export const app = new Svc({ title: 'Chat demo' })

/** Pause between words of an answer (ms): slow enough to watch the answer arrive. */
const WORD_DELAY_MS = 120

function answerFor(question: string): string {
  const q = question.trim().replace(/\s+/g, ' ')
  return `You asked: "${q}". This answer comes from the API route **GET /api/chat/stream** as Server-Sent Events, one word per event, and the page shows each word as it arrives. The full text is kept in session state, so the conversation survives reruns.`
}

/**
 * A typed event route: one event per word, each a JSON string checked by `events`. A real app
 * would relay a model's token stream here. When the page stops reading (a new question), the
 * connection closes and this generator ends.
 */
export const chatStream = app.sseRoute({
  method: 'GET',
  url: '/chat/stream',
  schema: { querystring: z.object({ q: z.string().max(2000) }) },
  events: z.string(),
  async *handler(req) {
    for (const [i, word] of answerFor(req.query.q).split(' ').entries()) {
      if (i > 0) await sleep(WORD_DELAY_MS)
      yield i === 0 ? word : ' ' + word
    }
  },
})

interface Message {
  role: 'user' | 'assistant'
  content: string
}

app.page('/', { title: 'Chat', icon: '💬' }, async (st, client) => {
  st.title('Chat')
  st.caption('Answers stream from `GET /api/chat/stream` (Server-Sent Events), word by word.')
  const history: Message[] = (st.sessionState.messages ??= [])
  for (const m of history) st.chatMessage(m.role).markdown(m.content)
  const prompt = st.chatInput('Ask anything', { maxChars: 2000 })
  if (prompt) {
    st.chatMessage('user').markdown(prompt)
    const words = await client.stream(chatStream, { query: { q: prompt } })
    const answer = await st.chatMessage('assistant').writeStream(words)
    // Stored only once the answer is complete: a run replaced mid-stream is retried with the same prompt.
    history.push({ role: 'user', content: prompt }, { role: 'assistant', content: answer })
  }
})

app.page('/overlays', { title: 'Dialogs and status', icon: '🪟' }, async (st) => {
  st.title('Dialogs, popovers, status')
  const project: string = (st.sessionState.project ??= 'Apollo')

  const rename = await st.dialog('Rename project', (d, dialog) => {
    const name = d.textInput('New name', { value: project, key: 'newName' })
    d.caption(`Preview: **${name}**`)
    if (d.button('Save', { type: 'primary' })) {
      st.sessionState.project = name
      dialog.close()
    }
  })
  st.markdown(`Project: **${project}**`)
  // Typing in the dialog reruns only its body: this count moves on page reruns alone.
  st.sessionState.pageRuns = (st.sessionState.pageRuns ?? 0) + 1
  st.caption(`Page runs this session: ${st.sessionState.pageRuns}`)
  if (st.button('Rename…')) await rename.open()

  const filters = st.popover('Filters', { icon: '⚙' })
  const region = filters.radio('Region', ['All', 'North', 'South'])
  const onlyPaid = filters.checkbox('Only paid orders')
  st.caption(`Showing ${region} regions${onlyPaid ? ', paid orders only' : ''}.`)

  if (st.button('Run import')) {
    await st.status('Importing orders…', async (s) => {
      s.write('Downloading the export…')
      await sleep(700)
      s.write('Checking 240 rows…')
      await sleep(700)
      s.update({ label: 'Import complete' })
    })
  }
  if (st.button('Check the archive')) {
    const s = st.status('Checking the archive…', { expanded: true })
    await sleep(500)
    s.error('The archive is not reachable.')
    s.update({ label: 'Archive check failed', state: 'error' })
  }
})
