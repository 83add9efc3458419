/**
 * What row identity costs per rerun (issue #22.1): in-process reruns of a page with one
 * 100,000-row table, against the same table drawn without selection. A selectable table without
 * a `rowKey` compares its rows with the last run's to know whether they changed; with a `rowKey`
 * it builds a key → row map; a keyed data editor also fits its held edits to the data.
 * Run: npm run bench:row-identity
 */
import { Svc } from '../src/app.js'
import { createUiTestHandle } from '../src/testing/app-test.js'
import type { St } from '../src/ui/st-types.js'
import { machineLine, mean, ms, percentile, printTable, ratio } from './pages-lib/report.js'

const ROWS = 100_000
const WARMUP = 5
const SAMPLES = 30
const data = Array.from({ length: ROWS }, (_v, i) => ({ id: 100_000 + i, city: `city-${(i * 7919) % 1000}`, amount: ((i * 104729) % 100_000) / 100 }))

const cases: [string, (st: St) => void][] = [
  ['dataframe, no selection (baseline)', (st) => void st.dataframe(data, { key: 't' })],
  ['selection, no rowKey (rows compared)', (st) => void st.dataframe(data, { key: 't', selectionMode: 'multi-row' })],
  ['selection, rowKey: "id"', (st) => void st.dataframe(data, { key: 't', selectionMode: 'multi-row', rowKey: 'id' })],
  ['dataEditor, no rowKey', (st) => void st.dataEditor(data, { key: 't' })],
  ['dataEditor, rowKey: "id", 100 edits held', (st) => void st.dataEditor(data, { key: 't', rowKey: 'id' })],
]

async function measure(page: (st: St) => void, edits: boolean): Promise<number[]> {
  const app = new Svc({ title: 'bench', log_level: 'fatal' })
  app.page('/', page)
  const at = await createUiTestHandle(app, { timeoutMs: 60_000 }).run()
  if (edits) {
    const editedRows = Object.fromEntries(Array.from({ length: 100 }, (_v, i) => [String(100_000 + i * 997), { city: `edited-${i}` }]))
    await at.send({ v: 1, type: 'widget', id: at.dataEditor[0]!.id, value: { editedRows, addedRows: [], deletedRows: [] } })
  }
  const samples: number[] = []
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const t0 = performance.now()
    await at.run()
    if (i >= WARMUP) samples.push(performance.now() - t0)
  }
  return samples
}

console.log(machineLine())
console.log(`Rerun of a page with one ${ROWS.toLocaleString('en-US')}-row table, in-process, ${SAMPLES} runs after ${WARMUP} warm-up`)
const results: { label: string; samples: number[] }[] = []
for (const [label, page] of cases) results.push({ label, samples: await measure(page, label.includes('edits held')) })
const base = mean(results[0]!.samples)
printTable(['', 'mean ms', 'p50 ms', 'p99 ms', 'vs baseline'], results.map((r) => [r.label, ms(mean(r.samples)), ms(percentile(r.samples, 50)), ms(percentile(r.samples, 99)), ratio(mean(r.samples), base)]))
