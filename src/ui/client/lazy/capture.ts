import type { AudioInputProps, CameraInputProps, CapturedFile, UploadedFilePayload, WidgetBase } from '../../wire/elements.js'
import cssHref from './capture.css?url'
import { h, labelRow } from './field.js'
import { denied, startRecording, type Recording } from './recorder.js'
import { loadStylesheet } from './stylesheet.js'
import type { MountView, ViewHost } from './view.js'

/**
 * `st.audioInput` and `st.cameraInput` (issue #36), in a chunk of their own: the microphone or
 * the camera is asked for only when the visitor presses the widget's button. The WAV or JPEG is
 * uploaded like a `fileUploader` file and the widget sends `[payload]` (`[]` clears it); the
 * server checks size, type and format. Inside a form the value waits for the submit.
 */
const styles = loadStylesheet(new URL(cssHref, import.meta.url).href)

function button(label: string, onClick: () => void, primary = false): HTMLButtonElement {
  const b = h('button', primary ? 'svc-button is-primary' : 'svc-button is-secondary', label)
  b.type = 'button'
  b.onclick = onClick
  return b
}

interface Capture<P> {
  /** What the widget shows when it holds nothing, and how it makes a file. */
  idle(p: P, take: (file: File) => Promise<void>, fail: (message: string) => void): HTMLElement[]
  /** The held file: a player or the photo. */
  held(file: { url: string; name: string }): HTMLElement
  clearLabel: string
}

function captureView<P extends WidgetBase & { value: CapturedFile | null; maxBytes: number }>(kind: Capture<P>): MountView<P> {
  return (el, initial, host: ViewHost) => {
    let props = initial
    /** A file taken here and sent, shown until the server's value replaces it (a form waits for its submit). */
    let local: { url: string; name: string; serverValue: CapturedFile | null } | null = null
    let problem: string | null = null
    let busy = false
    let stopped = false
    const send = (payload: UploadedFilePayload[]) => host.sendValue(payload)
    const take = async (file: File) => {
      if (file.size > props.maxBytes) {
        problem = `The file is ${Math.ceil(file.size / 1024)} KB; the limit is ${Math.floor(props.maxBytes / 1024)} KB.`
        return draw()
      }
      busy = true
      draw()
      try {
        const ref = await host.upload(file)
        if (local) URL.revokeObjectURL(local.url)
        local = { url: URL.createObjectURL(file), name: file.name, serverValue: props.value }
        problem = null
        send([{ name: file.name, type: file.type, size: file.size, ref }])
      } catch (e) {
        problem = `The file could not be uploaded: ${e instanceof Error ? e.message : String(e)}`
      } finally {
        busy = false
        draw()
      }
    }
    const fail = (message: string) => {
      problem = message
      draw()
    }
    const draw = () => {
      if (stopped) return
      const field = h('div', props.disabled ? 'svc-field svc-capture is-disabled' : 'svc-field svc-capture')
      field.append(labelRow(props))
      const file = local ?? (props.value && { url: props.value.url, name: props.value.name })
      const box = h('div', 'svc-capture-box')
      if (file) {
        const clear = button(kind.clearLabel, () => {
          if (local) URL.revokeObjectURL(local.url)
          local = null
          send([])
          draw()
        })
        clear.disabled = props.disabled || busy
        box.append(kind.held(file), clear)
      } else {
        box.append(...kind.idle(props, take, fail))
      }
      field.append(box)
      if (busy) field.append(h('p', 'svc-muted svc-capture-status', 'Uploading…'))
      if (problem) {
        const error = h('p', 'svc-field-error', problem)
        error.setAttribute('role', 'alert')
        field.append(error)
      }
      el.replaceChildren(field)
    }
    draw()
    return {
      ready: styles,
      view: {
        update(next) {
          // A new server value (the run the file caused, a reset) replaces what was taken here.
          if (local && JSON.stringify(next.value) !== JSON.stringify(local.serverValue)) {
            URL.revokeObjectURL(local.url)
            local = null
          }
          props = next
          draw()
        },
        destroy() {
          stopped = true
          if (local) URL.revokeObjectURL(local.url)
        },
      },
    }
  }
}

const clock = (s: number): string => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`

const mountAudio: MountView<AudioInputProps> = captureView<AudioInputProps>({
  clearLabel: 'Clear recording',
  held(file) {
    const audio = h('audio', 'svc-audio')
    audio.controls = true
    audio.src = file.url
    return audio
  },
  idle(p, take, fail) {
    let recording: Recording | null = null
    const time = h('span', 'svc-capture-time', '0:00')
    let timer = 0
    const record = button('● Record', () => {
      if (recording) {
        const done = recording
        recording = null
        clearInterval(timer)
        done.stop().then(take, (e: unknown) => fail(`The recording could not be made: ${e instanceof Error ? e.message : String(e)}`))
        return
      }
      record.disabled = true
      startRecording(p.sampleRate === 0 ? null : p.sampleRate).then(
        (r) => {
          recording = r
          record.disabled = false
          record.textContent = '■ Stop'
          record.setAttribute('aria-pressed', 'true')
          record.setAttribute('aria-label', `Stop recording: ${p.label}`)
          timer = window.setInterval(() => {
            if (!record.isConnected) {
              clearInterval(timer)
              r.cancel()
              return
            }
            time.textContent = clock(r.elapsed())
          }, 250)
        },
        (e: unknown) => fail(e instanceof Error ? e.message : String(e)),
      )
    }, true)
    record.disabled = p.disabled
    record.setAttribute('aria-label', `Record: ${p.label}`)
    return [record, time]
  },
})

const mountCamera: MountView<CameraInputProps> = captureView<CameraInputProps>({
  clearLabel: 'Clear photo',
  held(file) {
    const img = h('img', 'svc-capture-photo')
    img.src = file.url
    img.alt = 'Photo taken'
    return img
  },
  idle(p, take, fail) {
    const start = button('Start camera', () => {
      start.disabled = true
      navigator.mediaDevices.getUserMedia({ video: true }).then(
        (stream) => {
          const video = h('video', 'svc-capture-video')
          video.muted = true
          video.playsInline = true
          video.srcObject = stream
          void video.play()
          const release = () => stream.getTracks().forEach((t) => t.stop())
          const shoot = button('Take photo', () => {
            const canvas = document.createElement('canvas')
            canvas.width = video.videoWidth
            canvas.height = video.videoHeight
            canvas.getContext('2d')!.drawImage(video, 0, 0)
            release()
            canvas.toBlob((blob) => (blob ? void take(new File([blob], 'photo.jpg', { type: 'image/jpeg' })) : fail('The photo could not be made.')), 'image/jpeg', 0.9)
          }, true)
          shoot.setAttribute('aria-label', `Take photo: ${p.label}`)
          // The camera light goes off when the widget leaves the page.
          const watch = window.setInterval(() => {
            if (!video.isConnected) {
              clearInterval(watch)
              release()
            }
          }, 1000)
          start.replaceWith(video, shoot)
        },
        (e: unknown) => fail(denied(e, 'camera')),
      )
    }, true)
    start.disabled = p.disabled
    start.setAttribute('aria-label', `Start the camera: ${p.label}`)
    return [start]
  },
})

/** Both widgets' view: a recording has a sample rate (`audioInput`), a photo none (`cameraInput`). */
export const mount: MountView<AudioInputProps | CameraInputProps> = (el, props, host) =>
  'sampleRate' in props ? mountAudio(el, props, host as never) : (mountCamera(el, props, host as never) as ReturnType<MountView<AudioInputProps | CameraInputProps>>)
