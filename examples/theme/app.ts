import { Svc } from 'svc'
import type { St } from 'svc/ui'

/**
 * A themed app with the media and choice widgets: teal primary colour, rounder corners, its own
 * dark-mode colour. Run it with `svc run examples/theme/app.ts:app` and switch light/dark in the
 * ⋮ menu. The same `theme` block can live in svc.config.json instead.
 */
export const app = new Svc({
  title: 'Field notes',
  theme: { primaryColor: '#0f766e', baseRadius: 'large', dark: { primaryColor: '#2dd4bf' } },
})

app.page('/', { title: 'Log a visit', icon: ':material/description:' }, (st: St) => {
  st.title('Log a visit')
  const [when, colour] = st.columns(2)
  const time = when!.timeInput('Arrived at', { value: '09:00', key: 'time' })
  const tag = colour!.colorPicker('Map pin colour', { value: '#0f766e', key: 'pin' })
  const mood = st.segmentedControl('Site condition', ['Poor', 'Fair', 'Good'], { default: 'Good', key: 'condition' })
  const tags = st.pills('Tags', ['water', 'power', 'access', 'safety'], { selectionMode: 'multi', key: 'tags' })
  const effort = st.selectSlider('Effort', ['trivial', 'small', 'medium', 'large'], { value: 'medium' })
  st.markdown(`**${time}** · condition *${mood ?? 'not set'}* · ${tags.length} tag(s) · effort ${effort} · pin \`${tag}\``)
  st.caption('Was this form easy to fill in?')
  const rating = st.feedback('faces', { key: 'rating' })
  if (rating !== null) st.success(`Thanks for the feedback (${rating + 1}/5).`, { icon: ':material/check_circle:' })
})

/** A one-second 440 Hz tone as 8-bit mono WAV, made in memory so the example needs no files. */
function tone(): Buffer {
  const rate = 8000
  const wav = Buffer.alloc(44 + rate)
  wav.write('RIFF', 0)
  wav.writeUInt32LE(36 + rate, 4)
  wav.write('WAVEfmt ', 8)
  wav.writeUInt32LE(16, 16)
  wav.writeUInt16LE(1, 20) // PCM
  wav.writeUInt16LE(1, 22) // mono
  wav.writeUInt32LE(rate, 24)
  wav.writeUInt32LE(rate, 28)
  wav.writeUInt16LE(1, 32)
  wav.writeUInt16LE(8, 34)
  wav.write('data', 36)
  wav.writeUInt32LE(rate, 40)
  for (let i = 0; i < rate; i++) wav[44 + i] = Math.round(128 + 60 * Math.sin((2 * Math.PI * 440 * i) / rate))
  return wav
}

/** A one-page PDF with a line of text. */
function report(): Buffer {
  const text = 'BT /F1 18 Tf 40 60 Td (Field notes: 3 visits this week) Tj ET'
  return Buffer.from(
    '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n' +
      '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 420 120]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>endobj\n' +
      `4 0 obj<</Length ${text.length}>>stream\n${text}\nendstream endobj\n` +
      '5 0 obj<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
  )
}

app.page('/media', { title: 'Media', icon: '🎬' }, (st: St) => {
  st.title('Media')
  st.audio(tone(), { format: 'audio/wav' })
  st.pdf(report(), { height: 320 })
})
