/**
 * The postMessage protocol between a page of svc (the host) and a custom component in its iframe.
 * Every message is an object `{ svc: 'component', v: 1, type, ... }`; either side ignores
 * anything else, and a host or component that sees another `v` ignores the message (the
 * version moves only when a message changes meaning). Browser-only, no imports: shared by the
 * page client and `svc/component`.
 *
 * component → host: `ready` (listening; send me a render), `setValue` (JSON), `setHeight` (px).
 * host → component: `render` with the args, the theme, `disabled` and the current value, on
 * `ready` and again whenever any of them changes (a theme switch included).
 */
export const COMPONENT_PROTOCOL_VERSION = 1

/** The page's theme as a component receives it: the mode, the main colours, and every `--svc-*` CSS variable. */
export interface ComponentTheme {
  base: 'light' | 'dark'
  primaryColor: string
  backgroundColor: string
  secondaryBackgroundColor: string
  textColor: string
  font: string
  /** The page's `--svc-*` custom properties (name → value), e.g. `--svc-accent`, `--svc-border`, `--svc-radius`. */
  variables: Record<string, string>
}

export type ToComponent = { svc: 'component'; v: 1; type: 'render'; args: unknown; theme: ComponentTheme; disabled: boolean; value: unknown }

export type FromComponent =
  | { svc: 'component'; v: 1; type: 'ready' }
  | { svc: 'component'; v: 1; type: 'setValue'; value: unknown }
  | { svc: 'component'; v: 1; type: 'setHeight'; height: number }

/** A message of this protocol (any version): the brand first, so foreign postMessage traffic is ignored cheaply. */
export function isComponentMessage(data: unknown): data is { svc: 'component'; v: unknown; type: unknown } {
  return typeof data === 'object' && data !== null && (data as { svc?: unknown }).svc === 'component'
}
