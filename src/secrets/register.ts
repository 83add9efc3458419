/**
 * Types that an app registers once for the whole project, by module augmentation:
 *
 * ```ts
 * declare module 'svc' {
 *   interface Register { secrets: typeof app.secrets }
 * }
 * ```
 *
 * then `st.secrets` in every page has the type of `app.secrets`.
 */
// An empty interface is the point: apps add members to it.
export interface Register {}

/** `st.secrets`: the registered type, else a read-only record. */
export type RegisteredSecrets = Register extends { secrets: infer S } ? S : Readonly<Record<string, unknown>>
