// Close codes of the page socket that the browser acts on (shared by the page server and the
// browser client, which must not load protocol.ts and its zod schemas).
/**
 * Close code of a page socket whose session a newer socket presenting the same id took over
 * (a reload whose new socket won the race with the old one's close, a reconnect after a
 * half-open connection). The browser holding it starts a session of its own, never takes it back.
 */
export const SESSION_TAKEN_OVER_CLOSE_CODE = 4001
