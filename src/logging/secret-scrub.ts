import { REDACTED, redactCredentialsInText } from './redact.js'

/**
 * Secret values (`app.secrets`) are scrubbed from every log line svc writes, whatever logged them
 * and under whatever key: a connection string in an error message, a token a page logged by
 * mistake. Values are registered when the app loads its secrets; every root logger's
 * `streamWrite` hook replaces them in the finished line. One registry per process (a
 * `Symbol.for` slot, so a second copy of svc in the same process shares it).
 *
 * A secret reaches a line in whatever spelling the code that built the message gave it, so lines
 * are compared in a canonical form, not as written: percent-escapes decoded (`%XX`, also
 * `%25XX`), JSON escapes undone at any depth (`\"`, `\\\\`, `\u00e9`, `\n`), line breaks (with the
 * indentation after them) and backslashes dropped, `+` read as a space. A secret JSON-escaped twice, URL-encoded, or split
 * across lines has the same canonical form as the secret, so a plain substring search finds it.
 * Its base64 (standard and URL alphabets, at any byte alignment, wrapped or not) and hex forms
 * are searched too. Only a line that holds one (rare) is mapped back character by character to
 * replace exactly the characters that spell it.
 */

/** Shorter strings are not scrubbed by value: they are not secrets, and would mangle every line. */
export const MIN_SCRUBBED_LENGTH = 6
/** Base64 and hex spellings shorter than this are not searched: too likely to occur by chance. */
const MIN_ENCODED_LENGTH = 8

const kRegistry = Symbol.for('svc.logging.secretValues')

interface Registry {
  values: Set<string>
  /** Canonical spellings of every value, longest first (a value that contains another is replaced whole). */
  needles: string[]
  /** Any of the needles: one search of a line instead of one per needle. */
  anyNeedle: RegExp | null
}

function registry(): Registry {
  const slot = globalThis as unknown as Record<symbol, Registry | undefined>
  return (slot[kRegistry] ??= { values: new Set(), needles: [], anyNeedle: null })
}

/** Register every string leaf of `value` (objects and arrays are walked) for scrubbing. */
export function registerSecretValues(value: unknown): void {
  const r = registry()
  const before = r.values.size
  const walk = (v: unknown, depth: number): void => {
    if (typeof v === 'string') {
      if (v.length >= MIN_SCRUBBED_LENGTH) r.values.add(v)
    } else if (depth < 16 && typeof v === 'object' && v !== null) for (const item of Object.values(v)) walk(item, depth + 1)
  }
  walk(value, 0)
  if (r.values.size === before) return
  const needles = new Set<string>()
  for (const v of r.values) for (const n of spellings(v)) needles.add(n)
  r.needles = [...needles].sort((a, b) => b.length - a.length)
  r.anyNeedle = new RegExp(r.needles.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'))
}

/** `line` with every registered secret value, in any spelling above, replaced by `<redacted>`. */
export function scrubSecrets(line: string): string {
  const { needles, anyNeedle } = registry()
  if (anyNeedle === null || !anyNeedle.test(canonical(line))) return line
  return redact(line, needles)
}

/**
 * Text shown outside the logger (an error's details on a page): registered secret values and
 * credential-shaped values (`redactCredentialsInText`) replaced, as a log line would have them.
 */
export function scrubShownText(text: string): string {
  return scrubSecrets(redactCredentialsInText(text))
}

const PERCENT = /%(?:25)*([0-9a-fA-F]{2})/g
const UNICODE_ESCAPE = /\\+u([0-9a-fA-F]{4})/g
const SHORT_ESCAPE = /\\+([nrtbf])/g
/** Backslashes go with the character they escape, so a replaced part never leaves half an escape behind. */
const ESCAPED = /\\+([^\\\r\n])/g
/** Backslashes left over, and line breaks with the indentation after them (a wrapped value). */
const DROPPED = /(?:\\|[\r\n][ \t]*)+/g
const PLUS = /\+/g
const CONTROL: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' }

type Pass = readonly [RegExp, (match: RegExpExecArray) => string]

/** The canonical form, as a chain of passes; `canonical` and `mappedCanonical` run the same ones. */
const PASSES: readonly Pass[] = [
  [PERCENT, (m) => String.fromCharCode(parseInt(m[1]!, 16))],
  [UNICODE_ESCAPE, (m) => String.fromCharCode(parseInt(m[1]!, 16))],
  [SHORT_ESCAPE, (m) => CONTROL[m[1]!]!],
  [ESCAPED, (m) => m[1]!],
  [DROPPED, () => ''],
  [PLUS, () => ' '],
]

/**
 * The line in canonical form, for finding needles (which hold no line break): the passes that
 * cannot change that (no `%`, no `\`, no `+`, no line break but the line's own end) are skipped.
 */
function canonical(s: string): string {
  let out = s
  if (out.includes('%')) out = out.replace(PERCENT, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  if (out.includes('\\')) {
    out = out
      .replace(UNICODE_ESCAPE, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)))
      .replace(SHORT_ESCAPE, (_m, c: string) => CONTROL[c]!)
      .replace(ESCAPED, '$1')
  }
  const newline = out.indexOf('\n')
  if (out.includes('\\') || out.includes('\r') || (newline !== -1 && newline !== out.length - 1)) out = out.replace(DROPPED, '')
  return out.includes('+') ? out.replace(PLUS, ' ') : out
}

/** The canonical form of `s` and, for each of its characters, the part of `s` that spells it. */
interface Mapped {
  text: string
  starts: Int32Array
  ends: Int32Array
}

function mappedCanonical(s: string): Mapped {
  let text = s
  let starts = new Int32Array(s.length)
  let ends = new Int32Array(s.length)
  for (let i = 0; i < s.length; i++) {
    starts[i] = i
    ends[i] = i + 1
  }
  for (const [pattern, replace] of PASSES) {
    pattern.lastIndex = 0
    let m = pattern.exec(text)
    if (m === null) continue
    const nextStarts = new Int32Array(text.length)
    const nextEnds = new Int32Array(text.length)
    let out = ''
    let n = 0
    let at = 0
    for (; m !== null; m = pattern.exec(text)) {
      if (m.index > at) {
        out += text.slice(at, m.index)
        nextStarts.set(starts.subarray(at, m.index), n)
        nextEnds.set(ends.subarray(at, m.index), n)
        n += m.index - at
      }
      const ch = replace(m)
      if (ch !== '') {
        out += ch
        nextStarts[n] = starts[m.index]!
        nextEnds[n] = ends[m.index + m[0].length - 1]!
        n++
      }
      at = m.index + m[0].length
    }
    out += text.slice(at)
    nextStarts.set(starts.subarray(at), n)
    nextEnds.set(ends.subarray(at), n)
    n += text.length - at
    text = out
    starts = nextStarts.subarray(0, n)
    ends = nextEnds.subarray(0, n)
  }
  return { text, starts, ends }
}

/** Replace every part of `line` that spells a needle; parts that touch or overlap become one. */
function redact(line: string, needles: readonly string[]): string {
  const { text, starts, ends } = mappedCanonical(line)
  const spans: [number, number][] = []
  for (const n of needles) {
    for (let i = text.indexOf(n); i !== -1; i = text.indexOf(n, i + n.length)) spans.push([starts[i]!, ends[i + n.length - 1]!])
  }
  // Cannot happen (both forms come from the same passes); if it did, the line goes, not the secret.
  if (spans.length === 0) return REDACTED + (line.endsWith('\n') ? '\n' : '')
  spans.sort((a, b) => a[0] - b[0])
  let out = ''
  let at = 0
  for (const [start, end] of spans) {
    if (end <= at) continue
    out += line.slice(at, Math.max(at, start)) + (start >= at ? REDACTED : '')
    at = end
  }
  return out + line.slice(at)
}

/** The canonical forms of a secret as it may appear: itself, its UTF-8 bytes (percent-encoded), base64 and hex. */
function spellings(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8')
  const out = [canonical(value), canonical(bytes.toString('latin1'))]
  for (const core of base64Cores(bytes)) {
    out.push(canonical(core), canonical(core.replace(/\+/g, '-').replace(/\//g, '_')))
  }
  const hex = bytes.toString('hex')
  if (hex.length >= MIN_ENCODED_LENGTH) out.push(hex, hex.toUpperCase())
  return out.filter((s) => s.length >= MIN_SCRUBBED_LENGTH)
}

/**
 * The characters of `bytes`' base64 that do not depend on what surrounds them in a longer
 * encoded text, for each of the three byte alignments it can start at.
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = []
  for (let align = 0; align < 3; align++) {
    const encoded = Buffer.concat([Buffer.alloc(align), bytes]).toString('base64').replace(/=+$/, '')
    const lead = [0, 2, 3][align]!
    // A last group of one or two bytes ends in a character that shares bits with the next byte.
    const tail = (align + bytes.length) % 3 === 0 ? 0 : 1
    const core = encoded.slice(lead, encoded.length - tail)
    if (core.length >= MIN_ENCODED_LENGTH) cores.push(core)
  }
  return cores
}
