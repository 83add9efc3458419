import { expectTypeOf } from 'vitest'
import type { ChatInputValue, DataframeSelection, St, UploadedFile } from '../../src/ui/st-types.js'

/** Issue #36's typed surface: what each new call returns for the options it is given. */
declare const st: St

expectTypeOf(st.datetimeInput('When')).toEqualTypeOf<Date>()
expectTypeOf(st.datetimeInput('When', { value: '2026-03-01T09:30', step: 900 })).toEqualTypeOf<Date>()
expectTypeOf(st.datetimeInput('When', { value: null })).toEqualTypeOf<Date | null>()
expectTypeOf(st.audioInput('Voice', { sampleRate: null })).toEqualTypeOf<UploadedFile | null>()
expectTypeOf(st.cameraInput('Photo')).toEqualTypeOf<UploadedFile | null>()

// A chat input returns the text, or with attachments the text, files and recording.
expectTypeOf(st.chatInput('Ask')).toEqualTypeOf<string | null>()
expectTypeOf(st.chatInput('Ask', { acceptFile: 'multiple' })).toEqualTypeOf<ChatInputValue | null>()
expectTypeOf(st.chatInput('Ask', { acceptAudio: true, onSubmit: (v) => void expectTypeOf(v).toEqualTypeOf<ChatInputValue>() })).toEqualTypeOf<ChatInputValue | null>()

// Any selection mode, or a list of them, returns the selection, typed by the rows.
expectTypeOf(st.dataframe([{ a: 1 }], { selectionMode: 'multi-cell' })).toEqualTypeOf<DataframeSelection<{ a: number }>>()
expectTypeOf(st.dataframe([{ a: 1 }], { selectionMode: ['single-row', 'multi-column'] })).toEqualTypeOf<DataframeSelection<{ a: number }>>()
expectTypeOf(st.dataframe([{ a: 1 }])).toEqualTypeOf<void>()
expectTypeOf<DataframeSelection['selection']['cells']>().toEqualTypeOf<[number, string][]>()

// Data made on click, sync or async; echo returns what its function returns.
expectTypeOf(st.downloadButton('Export', async () => new Uint8Array(0), { onClick: 'ignore' })).toEqualTypeOf<boolean>()
expectTypeOf(st.echo(() => 42)).toEqualTypeOf<number>()
expectTypeOf(st.echo(async () => 'x')).toEqualTypeOf<Promise<string>>()

// @ts-expect-error a badge colour Streamlit does not have
st.badge('x', { color: 'pink' })
// @ts-expect-error the gap sizes are named
st.container({ horizontal: true, gap: 12 })
