/** The page protocol's version, the `v` of every message (src/ui/wire/protocol.ts). A module without zod, so the browser client can import it. */
export const UI_PROTOCOL_VERSION = 1
