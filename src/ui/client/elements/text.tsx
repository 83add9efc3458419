import { useEffect, useState } from 'preact/hooks'
import type { BadgeProps, CaptionProps, CodeProps, HeaderProps, JsonProps, MarkdownProps, SubheaderProps, TextProps, TitleProps } from '../../wire/elements.js'
import { Icon } from '../icons.js'
import { Help } from '../widgets/field.js'
import type { ElementProps } from './types.js'

function Heading({ level, text, anchor, help, divider }: { level: 1 | 2 | 3; text: string; anchor: string | null; help: string | null; divider?: boolean }) {
  const Tag = `h${level}` as 'h1' | 'h2' | 'h3'
  const cls = ['svc-title', 'svc-header', 'svc-subheader'][level - 1]
  return (
    <div class={divider ? 'svc-heading has-divider' : 'svc-heading'}>
      <Tag class={cls} id={anchor ?? undefined}>
        {text}
        {anchor ? (
          <a class="svc-anchor" href={`#${anchor}`} aria-label={`Link to ${text}`}>
            #
          </a>
        ) : null}
      </Tag>
      {help ? <Help text={help} /> : null}
    </div>
  )
}

export function Title({ props }: ElementProps<TitleProps>) {
  return <Heading level={1} text={props.text} anchor={props.anchor} help={props.help} />
}

export function Header({ props }: ElementProps<HeaderProps>) {
  return <Heading level={2} text={props.text} anchor={props.anchor} help={props.help} divider={props.divider} />
}

export function Subheader({ props }: ElementProps<SubheaderProps>) {
  return <Heading level={3} text={props.text} anchor={props.anchor} help={props.help} divider={props.divider} />
}

/** `html` is sanitized by the server (see elements.ts). */
export function Markdown({ props }: ElementProps<MarkdownProps>) {
  return <div class="svc-markdown" dangerouslySetInnerHTML={{ __html: props.html }} />
}

export function Caption({ props }: ElementProps<CaptionProps>) {
  return <div class="svc-markdown svc-caption" dangerouslySetInnerHTML={{ __html: props.html }} />
}

export function Text({ props }: ElementProps<TextProps>) {
  return <pre class="svc-text">{props.text}</pre>
}

export function Divider(_: ElementProps<unknown>) {
  return <hr class="svc-divider" />
}

export function CopyButton({ text }: { text: string }) {
  const [copied, setCopied] = useState(false)
  return (
    <button
      type="button"
      class="svc-copy"
      aria-label="Copy to clipboard"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => {
          setCopied(true)
          setTimeout(() => setCopied(false), 1500)
        })
      }}
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  )
}

/** Languages the lazily loaded highlighter knows (names and aliases); other code stays plain. */
const HIGHLIGHTED = /^([cm]?[jt]sx?|javascript|typescript|json|py(thon)?|sql|(ba|z)?sh|shell|console|ya?ml|css|html|xml|svg)$/i

/** The code as highlighted HTML lines, once the highlighter chunk has loaded; null until then (or never). */
function useHighlight(code: string, language: string | null): string[] | null {
  const [lines, setLines] = useState<string[] | null>(null)
  useEffect(() => {
    setLines(null)
    if (language === null || !HIGHLIGHTED.test(language)) return
    let live = true
    import('../lazy/highlight.js')
      .then((m) => m.highlightLines(code, language))
      .then((l) => live && setLines(l))
      .catch(() => undefined)
    return () => {
      live = false
    }
  }, [code, language])
  return lines
}

export function Code({ props }: ElementProps<CodeProps>) {
  const highlighted = useHighlight(props.code, props.language)
  const lines = highlighted ?? props.code.split('\n')
  const line = (l: string) => (highlighted ? <span dangerouslySetInnerHTML={{ __html: l }} /> : l)
  return (
    <div class="svc-code" data-language={props.language ?? undefined}>
      {props.language ? <span class="svc-code-lang">{props.language}</span> : null}
      <CopyButton text={props.code} />
      <pre>
        <code class={highlighted ? 'is-highlighted' : undefined}>
          {props.lineNumbers
            ? lines.map((l, i) => (
                <span key={i} class="svc-code-line">
                  <span class="svc-code-ln" aria-hidden="true">
                    {i + 1}
                  </span>
                  {line(l)}
                  {'\n'}
                </span>
              ))
            : highlighted
              ? line(highlighted.join('\n'))
              : props.code}
        </code>
      </pre>
    </div>
  )
}

/** A collapsible JSON tree; nodes below the first level start closed unless `expanded`. */
export function Json({ props }: ElementProps<JsonProps>) {
  return (
    <div class="svc-json" role="tree">
      <JsonValue value={props.value} depth={0} open={props.expanded} />
    </div>
  )
}

function JsonValue({ value, depth, open, name }: { value: unknown; depth: number; open: boolean; name?: string }) {
  const [expanded, setExpanded] = useState(open || depth === 0)
  const key = name !== undefined ? <span class="svc-json-key">{JSON.stringify(name)}: </span> : null
  if (value === null || typeof value !== 'object') {
    const kind = value === null ? 'null' : typeof value
    return (
      <div class="svc-json-row" role="treeitem">
        {key}
        <span class={`svc-json-${kind}`}>{JSON.stringify(value) ?? String(value)}</span>
      </div>
    )
  }
  const entries: [string | undefined, unknown][] = Array.isArray(value) ? value.map((v) => [undefined, v]) : Object.entries(value)
  const [openCh, closeCh] = Array.isArray(value) ? ['[', ']'] : ['{', '}']
  if (entries.length === 0) {
    return (
      <div class="svc-json-row" role="treeitem">
        {key}
        {openCh + closeCh}
      </div>
    )
  }
  return (
    <div class="svc-json-node" role="treeitem" aria-expanded={expanded}>
      <button type="button" class="svc-json-toggle" onClick={() => setExpanded(!expanded)} aria-label={expanded ? 'Collapse' : 'Expand'}>
        <span class={expanded ? 'svc-caret is-open' : 'svc-caret'} aria-hidden="true" />
        {key}
        {openCh}
        {expanded ? null : <span class="svc-json-summary">{` ${entries.length} ${Array.isArray(value) ? 'items' : 'keys'} ${closeCh}`}</span>}
      </button>
      {expanded ? (
        <>
          <div class="svc-json-children" role="group">
            {entries.map(([k, v], i) => (
              <JsonValue key={k ?? i} value={v} depth={depth + 1} open={open} name={k} />
            ))}
          </div>
          <div class="svc-json-row">{closeCh}</div>
        </>
      ) : null}
    </div>
  )
}

/** `st.badge`: a coloured pill (issue #36). */
export function Badge({ props }: ElementProps<BadgeProps>) {
  return (
    <span class={`svc-badge is-${props.color}`} data-testid="badge" title={props.help ?? undefined}>
      {props.icon ? <Icon value={props.icon} /> : null}
      <span>{props.label}</span>
    </span>
  )
}
