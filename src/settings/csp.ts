import { z } from '../internal/zod.js'

/**
 * The `ui_csp` setting: how the Content-Security-Policy of the pages differs from svc's own.
 * - an object adds sources per directive to svc's policy: `{"img-src": ["https://cdn.example.com"]}`
 *   (a string value is split at spaces);
 * - a string replaces the whole policy (the pages then get exactly that string);
 * - false sends none;
 * - null (the default) keeps svc's policy as it is.
 * Every value lands in a response header, so directive names are checked against the CSP
 * directives and sources against what a source expression can be (no `;`, `,` or spaces).
 */

/** CSP Level 3 directives that take a source list. */
export const SOURCE_DIRECTIVES = [
  'default-src',
  'script-src',
  'script-src-elem',
  'script-src-attr',
  'style-src',
  'style-src-elem',
  'style-src-attr',
  'img-src',
  'font-src',
  'connect-src',
  'media-src',
  'object-src',
  'frame-src',
  'child-src',
  'worker-src',
  'manifest-src',
  'base-uri',
  'form-action',
  'frame-ancestors',
] as const
export type SourceDirective = (typeof SOURCE_DIRECTIVES)[number]

const DIRECTIVES = new Set<string>(SOURCE_DIRECTIVES)

/** A source expression: a scheme (`https:`), a host with optional scheme, port and path, or a quoted keyword/nonce/hash. */
const SOURCE = /^(?:'[A-Za-z0-9+/=_-]+'|[A-Za-z][A-Za-z0-9+.-]*:|(?:[A-Za-z][A-Za-z0-9+.-]*:\/\/)?(?:\*\.)?[A-Za-z0-9.-]+(?::(?:\d{1,5}|\*))?(?:\/[^\s;,'"]*)?|\*)$/

const sources = z
  .union([z.array(z.string().trim()), z.string().trim().transform((v) => v.split(/\s+/).filter(Boolean))])
  .pipe(
    z
      .array(
        z.string().regex(SOURCE, {
          message: "must be a CSP source: a scheme (https:), a host (cdn.example.com, https://*.example.com:8443), or a quoted keyword ('self', 'unsafe-inline')",
        }),
      )
      .max(64),
  )

const additions = z.record(z.string(), sources).superRefine((value, ctx) => {
  for (const name of Object.keys(value)) {
    if (!DIRECTIVES.has(name)) {
      ctx.addIssue({ code: 'custom', path: [name], message: `"${name}" is not a CSP directive svc can add sources to; use one of ${SOURCE_DIRECTIVES.join(', ')}` })
    }
  }
})

/** A whole policy: printable ASCII without line breaks (it is a header value). */
const policy = z.string().trim().min(1).regex(/^[\x20-\x7e]*$/, { message: 'must be one line of printable ASCII (a header value)' }).max(8192)

export const cspSchema = z.union([z.literal(false), policy, additions]).nullable()

export type CspAdditions = Partial<Record<SourceDirective, string[]>>
export type CspSetting = false | string | CspAdditions | null

/** `SVC_UI_CSP`: JSON additions (`{…}`), `false`/`off`/`0` for none, else a whole policy; empty is unset. */
export function parseCspEnv(raw: string): unknown {
  const v = raw.trim()
  if (v === '') return null
  if (/^(?:false|off|0|no)$/i.test(v)) return false
  if (!v.startsWith('{')) return v
  try {
    return JSON.parse(v)
  } catch {
    return Symbol.for('svc.invalid-json')
  }
}
