/**
 * A voice recording as a WAV file, for `st.audioInput` and the chat input's microphone (issue
 * #36), as Streamlit makes one: the browser records with MediaRecorder (its own codec), then the
 * recording is decoded, mixed down to one channel, resampled to the widget's rate and written as
 * 16-bit PCM, which the server checks (src/ui/st/capture.ts).
 */

export interface Recording {
  /** Seconds since the recording started. */
  readonly elapsed: () => number
  /** Stop and return the WAV. */
  stop(): Promise<File>
  /** Stop and keep nothing. */
  cancel(): void
}

/** Asks for the microphone; rejects with a message a visitor can act on. */
export async function startRecording(sampleRate: number | null, name = 'recording.wav'): Promise<Recording> {
  let stream: MediaStream
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: true })
  } catch (e) {
    throw new Error(denied(e, 'microphone'))
  }
  const recorder = new MediaRecorder(stream)
  const chunks: Blob[] = []
  recorder.ondataavailable = (e) => chunks.push(e.data)
  const started = performance.now()
  const stopped = new Promise<void>((resolve) => (recorder.onstop = () => resolve()))
  const release = () => stream.getTracks().forEach((t) => t.stop())
  recorder.start()
  return {
    elapsed: () => (performance.now() - started) / 1000,
    async stop() {
      recorder.stop()
      await stopped
      release()
      const wav = await toWav(await new Blob(chunks).arrayBuffer(), sampleRate)
      return new File([wav], name, { type: 'audio/wav' })
    },
    cancel() {
      if (recorder.state !== 'inactive') recorder.stop()
      release()
    },
  }
}

/** Why a device could not be used, said for a visitor. */
export function denied(e: unknown, device: 'microphone' | 'camera'): string {
  const name = e instanceof DOMException ? e.name : ''
  if (name === 'NotAllowedError' || name === 'SecurityError') return `This page may not use your ${device}: allow it in the browser's site settings, then try again.`
  if (name === 'NotFoundError') return `No ${device} was found.`
  return `The ${device} could not be started${e instanceof Error && e.message ? `: ${e.message}` : ''}.`
}

async function toWav(encoded: ArrayBuffer, sampleRate: number | null): Promise<ArrayBuffer> {
  const context = new AudioContext()
  let decoded: AudioBuffer
  try {
    decoded = await context.decodeAudioData(encoded)
  } finally {
    void context.close()
  }
  const rate = sampleRate ?? decoded.sampleRate
  const length = Math.max(1, Math.ceil(decoded.duration * rate))
  const offline = new OfflineAudioContext(1, length, rate)
  const source = offline.createBufferSource()
  source.buffer = decoded
  source.connect(offline.destination)
  source.start()
  const samples = (await offline.startRendering()).getChannelData(0)
  const out = new DataView(new ArrayBuffer(44 + samples.length * 2))
  const text = (at: number, s: string) => [...s].forEach((c, i) => out.setUint8(at + i, c.charCodeAt(0)))
  text(0, 'RIFF')
  out.setUint32(4, 36 + samples.length * 2, true)
  text(8, 'WAVE')
  text(12, 'fmt ')
  out.setUint32(16, 16, true)
  out.setUint16(20, 1, true) // PCM
  out.setUint16(22, 1, true) // one channel
  out.setUint32(24, rate, true)
  out.setUint32(28, rate * 2, true)
  out.setUint16(32, 2, true)
  out.setUint16(34, 16, true)
  text(36, 'data')
  out.setUint32(40, samples.length * 2, true)
  for (let i = 0; i < samples.length; i++) out.setInt16(44 + i * 2, Math.max(-1, Math.min(1, samples[i]!)) * 0x7fff, true)
  return out.buffer
}
