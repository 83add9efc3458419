import type { FrameLine } from './code-frame.js'

/**
 * A type error found by `svc dev`'s type check, as the terminal and the dev overlay show it. One
 * shape for the checker, the supervisor, the page server and the browser: the IPC schema
 * (ipc/messages.ts) is checked against it.
 */
export interface DevTypeError {
  /** Relative to the working directory; null for a project-wide error (tsconfig). */
  file: string | null
  /** 1-based, like editors. */
  line: number | null
  column: number | null
  /** TypeScript's code: `TS2339`. */
  code: string
  message: string
  /** Source lines around `line` (empty without a place). */
  frame: FrameLine[]
  /** A syntax error: the file does not parse, so the save does not load (svc dev's load error says so too). */
  syntax?: boolean
}

/** A check's result: the first errors (sorted by place) and how many there are in all. */
export interface TypeCheckReport {
  errors: DevTypeError[]
  total: number
}
