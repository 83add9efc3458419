import { builtinModules } from 'node:module'
import { z } from '../../internal/zod.js'

/**
 * npm's rules for a package name (the ones `npm init` enforces for new packages): at most 214
 * characters, lowercase, URL-safe, not starting with `.` or `_`, optionally `@scope/name`, and
 * not a Node.js built-in module or a name npm reserves.
 */
const MAX_LENGTH = 214
const RESERVED = new Set(['node_modules', 'favicon.ico', ...builtinModules])

export const ProjectName = z
  .string()
  .min(1, 'it is empty')
  .max(MAX_LENGTH, `it is longer than ${MAX_LENGTH} characters`)
  .refine((s) => s === s.toLowerCase(), 'npm names are lowercase')
  .refine((s) => !/^[._]/.test(s), 'npm names cannot start with "." or "_"')
  .refine((s) => s.trim() === s && !/\s/.test(s), 'npm names cannot contain spaces')
  .refine((s) => /^(?:@[a-z0-9-*~][a-z0-9-*._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(s), 'npm names may only use a-z, 0-9, "-", ".", "_" and "~" (and "@scope/")')
  .refine((s) => !RESERVED.has(s), 'it is a Node.js built-in module or a name npm reserves')

/** A valid name close to `raw` (for the fix in the message), or `svc-app` when nothing is left. */
export function suggestName(raw: string): string {
  const s = raw
    .toLowerCase()
    .replace(/[^a-z0-9-._~]+/g, '-')
    .replace(/^[-._~]+|[-._~]+$/g, '')
    .slice(0, MAX_LENGTH)
  return ProjectName.safeParse(s).success ? s : 'svc-app'
}

/** `{ ok: true, name }` or `{ ok: false, reason }` naming the first broken rule. */
export function checkProjectName(raw: string): { ok: true; name: string } | { ok: false; reason: string } {
  const parsed = ProjectName.safeParse(raw)
  return parsed.success ? { ok: true, name: parsed.data } : { ok: false, reason: parsed.error.issues[0]!.message }
}
