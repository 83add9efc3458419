import type { ImageProps, LinkProps } from '../../wire/elements.js'
import { useRuntime } from '../context.js'
import type { ElementProps } from './types.js'
import { Icon } from '../icons.js'
import { safeUrl } from '../url.js'

export function Image({ props }: ElementProps<ImageProps>) {
  return (
    <figure class="svc-image">
      <img src={safeUrl(props.url, 'image')} alt={props.alt} width={props.width ?? undefined} style={props.width ? undefined : { width: '100%' }} />
      {props.caption ? <figcaption>{props.caption}</figcaption> : null}
    </figure>
  )
}

export function Link({ props }: ElementProps<LinkProps>) {
  const rt = useRuntime()
  const content = (
    <>
      {props.icon ? (
        <span class="svc-link-icon" aria-hidden="true">
          <Icon value={props.icon} />
        </span>
      ) : null}
      <span>{props.label}</span>
    </>
  )
  if (props.page !== null) {
    const page = props.page
    const query = /\?([^#]*)/.exec(props.href)?.[1] ?? ''
    return (
      <a
        class="svc-link is-page"
        href={rt.href(page, query)}
        onClick={(e) => {
          if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
          e.preventDefault()
          rt.navigate(page, query)
        }}
      >
        {content}
      </a>
    )
  }
  return (
    <a class="svc-link" href={safeUrl(props.href, 'link')} target={props.newTab ? '_blank' : undefined} rel={props.newTab ? 'noopener noreferrer' : undefined}>
      {content}
      {props.newTab ? (
        <span class="svc-link-external" aria-label="(opens in a new tab)">
          ↗
        </span>
      ) : null}
    </a>
  )
}
