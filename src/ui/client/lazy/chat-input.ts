import type { ChatInputProps, UploadedFilePayload } from '../../wire/elements.js'
import cssHref from './chat-input.css?url'
import { acceptsFile, h } from './field.js'
import { loadStylesheet } from './stylesheet.js'
import type { Recording } from './recorder.js'
import type { MountView } from './view.js'

/**
 * `st.chatInput`, drawn without Preact in a chunk of its own with its stylesheet, so pages without
 * a chat carry neither. Enter sends, Shift+Enter starts a new line; the value is a one-run
 * trigger. Text only (no `attach`), the value is the text. With files or a voice message
 * (`acceptFile`, `acceptAudio`; issue #36) it is `{ text, files, audio }`: files are uploaded when
 * picked and go with the next send; a recording (recorder.ts) is sent as soon as it stops, with
 * the text and files already there.
 */

const MAX_INPUT_HEIGHT = 200 // px, as the text-only input
const NEAR_BOTTOM_PX = 96
const SVG = 'http://www.w3.org/2000/svg'
const styles = loadStylesheet(new URL(cssHref, import.meta.url).href)

function icon(d: string, filled = false): SVGSVGElement {
  const svg = document.createElementNS(SVG, 'svg')
  svg.setAttribute('viewBox', '0 0 24 24')
  svg.setAttribute('aria-hidden', 'true')
  const path = document.createElementNS(SVG, 'path')
  path.setAttribute('d', d)
  if (filled) path.setAttribute('fill', 'currentColor')
  else for (const [k, v] of [['fill', 'none'], ['stroke', 'currentColor'], ['stroke-width', '1.8'], ['stroke-linecap', 'round']]) path.setAttribute(k!, v!)
  svg.append(path)
  return svg
}

const clock = (s: number): string => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`
const size = (n: number): string => (n < 1024 * 1024 ? `${Math.ceil(n / 1024)} KB` : `${(n / (1024 * 1024)).toFixed(1)} MB`)

export const mount: MountView<ChatInputProps> = (el, initial, host) => {
  let props = initial
  let files: UploadedFilePayload[] = []
  let recording: Recording | null = null
  const root = h('div', 'svc-chat-input')
  const tray = h('div', 'svc-chat-files')
  const note = h('span', '')
  note.setAttribute('role', 'status')
  const form = h('form', 'svc-chat-input-box')
  const area = h('textarea', 'svc-chat-textarea')
  area.rows = 1
  const attach = h('label', 'svc-chat-tool')
  attach.title = 'Attach files'
  const picker = h('input', 'svc-visually-hidden')
  picker.type = 'file'
  picker.setAttribute('aria-label', 'Attach files')
  attach.append(picker, icon('M16.5 6.5l-7.8 7.8a1.8 1.8 0 002.5 2.5l8-8a3.5 3.5 0 00-5-5l-8.2 8.2a5.3 5.3 0 007.5 7.5l7-7'))
  const mic = h('button', 'svc-chat-tool')
  mic.type = 'button'
  mic.append(icon('M12 3a3 3 0 00-3 3v6a3 3 0 006 0V6a3 3 0 00-3-3zM5.5 11a6.5 6.5 0 0013 0M12 17.5V21'))
  const send = h('button', 'svc-chat-send')
  send.type = 'submit'
  send.setAttribute('aria-label', 'Send')
  send.append(icon('M4 12l16-8-6 16-2.5-6.5z', true))
  form.append(attach, area, mic, send)
  root.append(tray, form)
  el.append(root)

  const say = (text: string | null) => {
    note.textContent = text ?? ''
    draw()
  }
  const draw = () => {
    const a = props.attach ?? null
    root.className = props.pinned ? 'svc-chat-input is-pinned' : 'svc-chat-input'
    form.className = props.disabled ? 'svc-chat-input-box is-disabled' : 'svc-chat-input-box'
    area.placeholder = recording ? 'Recording… press the microphone again to send' : props.placeholder
    area.setAttribute('aria-label', props.placeholder)
    if (props.maxChars !== null) area.maxLength = props.maxChars
    area.disabled = picker.disabled = mic.disabled = props.disabled
    attach.hidden = a?.files == null
    picker.multiple = a?.files != null && a.files !== 'single'
    picker.toggleAttribute('webkitdirectory', a?.files === 'directory')
    picker.accept = a?.accept?.join(',') ?? ''
    mic.hidden = a?.audioSampleRate == null
    mic.className = recording ? 'svc-chat-tool is-recording' : 'svc-chat-tool'
    mic.setAttribute('aria-pressed', String(recording !== null))
    mic.setAttribute('aria-label', recording ? 'Stop and send the recording' : 'Record a voice message')
    send.disabled = props.disabled || (area.value.trim() === '' && files.length === 0)
    tray.replaceChildren(
      ...files.map((f) => {
        const chip = h('span', 'svc-chat-file', f.name)
        const remove = h('button', '', '×')
        remove.type = 'button'
        remove.setAttribute('aria-label', `Remove ${f.name}`)
        remove.onclick = () => {
          files = files.filter((x) => x !== f)
          draw()
        }
        chip.append(remove)
        return chip
      }),
      note,
    )
    tray.hidden = files.length === 0 && note.textContent === ''
  }
  const grow = () => {
    area.style.height = 'auto'
    area.style.height = `${Math.min(area.scrollHeight, MAX_INPUT_HEIGHT)}px`
  }
  const submit = (audio: UploadedFilePayload | null = null) => {
    if (props.disabled || (area.value.trim() === '' && files.length === 0 && audio === null)) return
    host.sendValue(props.attach ? { text: area.value, files, audio } : area.value, true)
    area.value = ''
    files = []
    grow()
    draw()
    // Docked at the bottom: the answer appears above, so follow it.
    if (props.pinned) window.scrollTo({ top: document.documentElement.scrollHeight })
  }
  const upload = async (file: File): Promise<UploadedFilePayload> => ({ name: file.name, type: file.type || 'application/octet-stream', size: file.size, ref: await host.upload(file) })

  picker.onchange = async () => {
    const a = props.attach!
    const chosen = Array.from(picker.files ?? []).slice(0, a.files === 'single' ? 1 : undefined)
    picker.value = ''
    const refused = chosen.find((f) => !acceptsFile(a.accept, f) || f.size > a.maxBytes)
    if (refused) return say(`${refused.name}: not accepted (${a.accept?.join(', ') ?? 'any type'}, up to ${size(a.maxBytes)})`)
    say('Uploading…')
    try {
      const sent = await Promise.all(chosen.map(upload))
      files = a.files === 'single' ? sent : [...files, ...sent]
      say(null)
    } catch (e) {
      say(`The file could not be uploaded: ${(e as Error).message}`)
    }
  }
  mic.onclick = async () => {
    const rate = props.attach!.audioSampleRate
    try {
      if (recording) {
        const done = recording
        recording = null
        say('Sending…')
        const wav = await done.stop()
        const max = props.attach!.maxBytes
        if (wav.size > max) return say(`The recording is ${size(wav.size)}; the limit is ${size(max)}.`)
        submit(await upload(wav))
        say(null)
      } else {
        const { startRecording } = await import('./recorder.js')
        const r = (recording = await startRecording(rate === 0 ? null : rate, 'voice.wav'))
        const tick = () => {
          if (recording !== r) return
          say(`Recording ${clock(r.elapsed())}`)
          setTimeout(tick, 250)
        }
        tick()
      }
    } catch (e) {
      recording = null
      say((e as Error).message)
    }
  }
  area.oninput = () => {
    grow()
    draw()
  }
  area.onkeydown = (e) => {
    if (e.key !== 'Enter' || e.shiftKey || e.isComposing) return
    e.preventDefault()
    submit()
  }
  form.onsubmit = (e) => {
    e.preventDefault()
    submit()
  }

  // With the input docked, a reader at the end of the page stays there while an answer grows.
  const main = document.querySelector('.svc-block-container')
  const atEnd = () => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - NEAR_BOTTOM_PX
  let following = atEnd()
  const onScroll = () => void (following = atEnd())
  const grew = new ResizeObserver(() => {
    if (props.pinned && following) window.scrollTo({ top: document.documentElement.scrollHeight })
  })
  window.addEventListener('scroll', onScroll, { passive: true })
  if (main) grew.observe(main)

  draw()
  return {
    ready: styles,
    view: {
      update(next) {
        props = next
        draw()
      },
      destroy() {
        recording?.cancel()
        window.removeEventListener('scroll', onScroll)
        grew.disconnect()
      },
    },
  }
}
