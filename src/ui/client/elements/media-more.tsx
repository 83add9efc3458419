import type { AudioProps, PdfProps, VideoProps } from '../../wire/elements.js'
import type { ElementProps } from './types.js'
import { safeUrl } from '../url.js'

/** Start and end as a media fragment (`#t=10,20`), which every browser honours. */
function withFragment(src: string | undefined, p: AudioProps): string | undefined {
  if (src === undefined || src.startsWith('data:') || (p.startTime === 0 && p.endTime === null)) return src
  return `${src}#t=${p.startTime}${p.endTime !== null ? `,${p.endTime}` : ''}`
}

export function Audio({ props }: ElementProps<AudioProps>) {
  return (
    <audio class="svc-audio" data-testid="audio" controls src={withFragment(safeUrl(props.url, 'audio'), props)} loop={props.loop} autoplay={props.autoplay} preload="metadata">
      Your browser cannot play this audio.
    </audio>
  )
}

export function Video({ props }: ElementProps<VideoProps>) {
  return (
    <video
      class="svc-video"
      data-testid="video"
      controls
      src={withFragment(safeUrl(props.url, 'video'), props)}
      loop={props.loop}
      autoplay={props.autoplay}
      muted={props.muted || props.autoplay}
      playsInline
      preload="metadata"
      width={props.width ?? undefined}
      style={props.width ? undefined : { width: '100%' }}
    >
      Your browser cannot play this video.
    </video>
  )
}

export function Pdf({ props }: ElementProps<PdfProps>) {
  const src = safeUrl(props.url, 'pdf')
  return (
    <div class="svc-pdf" data-testid="pdf">
      <iframe class="svc-pdf-frame" src={src} title="PDF document" style={{ height: `${props.height}px` }} />
      {src ? (
        <a class="svc-pdf-open" href={src} target="_blank" rel="noopener noreferrer">
          Open the PDF in a new tab
        </a>
      ) : null}
    </div>
  )
}
