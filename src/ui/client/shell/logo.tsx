import type { LogoProps } from '../../wire/elements.js'
import { useRuntime } from '../context.js'
import { safeUrl } from '../url.js'

/**
 * `st.logo`: in the sidebar in place of the app title, and at the top left when there is no
 * sidebar or it is a drawer (narrow screens: `iconUrl`, if given). Its text is the app title.
 */
export function Logo({ props, corner }: { props: LogoProps; corner: 'none' | 'always' | 'narrow' }) {
  const rt = useRuntime()
  const alt = props.alt || rt.config.title
  const checked = props.link === null ? undefined : safeUrl(props.link, 'link')
  const href = checked === undefined ? null : checked.startsWith('/') ? rt.config.basePath + checked : checked
  const image = (url: string) => <img class={`svc-logo-img is-${props.size}`} src={safeUrl(url, 'image')} alt={alt} />
  const linked = (url: string) =>
    href === null ? image(url) : (
      <a href={href} {...(checked?.startsWith('/') ? {} : { target: '_blank', rel: 'noopener noreferrer' })}>
        {image(url)}
      </a>
    )
  if (corner === 'none') return <div class="svc-brand svc-logo" data-testid="logo">{linked(props.url)}</div>
  return (
    <div class={`svc-logo-corner is-${corner}`} data-testid="logo-corner">
      {linked(props.iconUrl ?? props.url)}
    </div>
  )
}
