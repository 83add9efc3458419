import { afterAll, describe, expect, it } from 'vitest'
import { SvcTestClient } from 'svc/testing'
import { MemoryUserStore } from 'svc/ui'

// Pages of the example's orders API answer at once here.
process.env.EXPORT_PAGE_DELAY_MS = '0'
const { app } = await import('../../../examples/exports/app.js')
const client = new SvcTestClient(app)
afterAll(() => client.close())

describe('examples/exports', () => {
  it('exports with progress to a CSV download, and keeps the settings per user', async () => {
    const store = new MemoryUserStore()
    const at = await client.ui({ user: { sub: 'ada' }, userStore: store }).run()
    expect(at.exception).toEqual([])
    at.slider('pages').setValue(3)
    await at.run()
    await at.button('Export').click().run()
    await at.waitForTasks()
    expect(at.exception).toEqual([])
    expect(at.success[0]!.value).toContain('Exported 150 orders')
    expect(at.downloadButton('Download CSV').props).toMatchObject({ fileName: 'orders-emea.csv' })

    // A new session of the same user starts from the settings the first one chose.
    const again = await client.ui({ user: { sub: 'ada' }, userStore: store }).run()
    expect(again.slider('pages').value).toBe(3)
    const other = await client.ui({ user: { sub: 'bob' }, userStore: store }).run()
    expect(other.slider('pages').value).toBe(40)
  })

  it('without a login the settings go to the browser (st.localStorage); a cancel stops the export', async () => {
    const at = await client.ui().run()
    at.radio('delimiter').setValue(';')
    // The longest export: the cancel comes while it runs.
    at.slider('pages').setValue(200)
    await at.run()
    expect(JSON.parse(at.localStorage['export-prefs']!)).toMatchObject({ delimiter: ';' })
    await at.button('Export').click().run()
    await at.button('Cancel export').click().run()
    await at.waitForTasks()
    expect(at.info[0]!.value).toContain('Export cancelled.')
  })
})
