import { z } from '../../internal/zod.js'
import { SvcError } from '../../errors.js'
import type { EffectProps, LogoProps } from '../wire/elements.js'
import { sniffMime } from '../media-store.js'
import { checkedUrl } from './checked-url.js'
import type { RunContext } from './run-context.js'
import type { LogoOptions, MediaSource } from '../st-types.js'

/** `st.logo`, `st.balloons`, `st.snow`: page decoration that lives outside the flow of elements. */

const logoOptions = z
  .object({
    link: z.string().optional(),
    iconImage: z.custom<MediaSource>((v) => typeof v === 'string' || v instanceof Uint8Array || v instanceof ArrayBuffer, { message: 'must be a URL or image bytes' }).optional(),
    size: z.enum(['small', 'medium', 'large']).optional(),
    alt: z.string().max(200).optional(),
  })
  .strict()

/** A URL (checked like `st.image`'s: the same policy the browser applies again) or bytes served from the media store. */
function imageUrl(ctx: RunContext, source: MediaSource, what: string): string {
  if (typeof source === 'string') return checkedUrl(`logo(${what})`, source, 'image').href
  if (!(source instanceof Uint8Array) && !(source instanceof ArrayBuffer)) throw new SvcError('SVC_ERR_UI_BAD_CALL', `logo(): ${what} must be a URL string, a Buffer, a Uint8Array or an ArrayBuffer`)
  const bytes = source instanceof Uint8Array ? source : new Uint8Array(source)
  return ctx.host.media.add(bytes, sniffMime(bytes))
}

export function logoProps(ctx: RunContext, image: MediaSource, input: LogoOptions = {}): LogoProps {
  const parsed = logoOptions.safeParse(input)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `logo(): option ${issue.path.join('.') || '(options)'} ${issue.message} (options: link, iconImage, size, alt)`)
  }
  const o = parsed.data
  return {
    url: imageUrl(ctx, image, 'image'),
    iconUrl: o.iconImage === undefined ? null : imageUrl(ctx, o.iconImage, 'iconImage'),
    link: o.link === undefined ? null : checkedUrl('logo(link)', o.link, 'link').href,
    size: o.size ?? 'medium',
    alt: o.alt ?? '',
  }
}

/** Each run that calls `balloons()`/`snow()` plays the animation once: the run's generation makes the props new. */
export function effectProps(ctx: RunContext): EffectProps {
  return { nonce: ctx.generation }
}
