import type { AudioProps, PdfProps, VideoProps } from '../../elements.js'
import type { ElementProps } from './types.js'

/** Only http(s), same-origin paths and `data:` URIs of the element's own kind reach the DOM. */
function mediaSrc(url: string, dataPrefix: string): string | undefined {
  const u = url.trim()
  if (/^https?:\/\//i.test(u) || (u.startsWith('/') && !u.startsWith('//'))) return u
  return u.toLowerCase().startsWith(dataPrefix) ? u : undefined
}

/** Start and end as a media fragment (`#t=10,20`), which every browser honours. */
function withFragment(src: string | undefined, p: AudioProps): string | undefined {
  if (src === undefined || src.startsWith('data:') || (p.startTime === 0 && p.endTime === null)) return src
  return `${src}#t=${p.startTime}${p.endTime !== null ? `,${p.endTime}` : ''}`
}

export function Audio({ props }: ElementProps<AudioProps>) {
  return (
    <audio class="svc-audio" data-testid="audio" controls src={withFragment(mediaSrc(props.url, 'data:audio/'), props)} loop={props.loop} autoplay={props.autoplay} preload="metadata">
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
      src={withFragment(mediaSrc(props.url, 'data:video/'), props)}
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
  const src = mediaSrc(props.url, 'data:application/pdf')
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
