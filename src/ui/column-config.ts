import { SvcError } from '../errors.js'
import type { ColumnKind, ColumnType, DataColumn } from './wire/elements.js'

/**
 * Column configuration of `st.dataframe` / `st.dataEditor`, named like Streamlit's
 * `st.column_config` in camelCase. A page passes `columnConfig: { name: ColumnConfig | label | null }`;
 * `null` hides the column, a string only relabels it.
 */
export interface ColumnConfigBase {
  /** Header text (default: the column name). */
  label?: string
  /** `small` | `medium` | `large` or pixels. */
  width?: 'small' | 'medium' | 'large' | number
  /** Tooltip on the header. */
  help?: string
  /** Kept at the left while the table scrolls sideways. */
  pinned?: boolean
  hidden?: boolean
  /** `dataEditor`: this column cannot be edited. */
  disabled?: boolean
  /** `dataEditor`: value of this column in a newly added row. */
  default?: string | number | boolean | null
}

/**
 * Number formats: `plain`, `localized`, `dollar`, `euro`, `yen`, `percent` (0.25 → 25.00%),
 * `compact`, `scientific`, `accounting`, or printf-style such as `%.2f`, `%d items`, `$%,.2f`.
 * Date formats: `localized`, `iso8601`, `distance`, or tokens (`YYYY-MM-DD HH:mm`).
 */
export interface ColumnConfig extends ColumnConfigBase {
  type?: ColumnType
  format?: string
  min?: number
  max?: number
  step?: number
  /** `link`: text shown instead of the URL; a regex with a capture group shows the captured part. */
  displayText?: string
  /** `selectbox`, `multiselect`: the values a cell may take. */
  options?: readonly (string | number | boolean)[]
  /** Chart columns: the bottom and top of every cell's chart (default: each cell's own range; bars from 0). */
  yMin?: number
  yMax?: number
}

/** `time` columns: the earliest and latest time (`"HH:MM"` or `"HH:MM:SS"`), and the step in seconds. */
export interface TimeColumnOptions extends ColumnConfigBase {
  format?: string
  min?: string
  max?: string
  step?: number
}

export type ColumnConfigInput = ColumnConfig | string | null

type Opts<K extends keyof ColumnConfig = never> = ColumnConfigBase & Pick<ColumnConfig, K>

const make = (type: ColumnType) => (o: ColumnConfig = {}): ColumnConfig => ({ ...o, type })

/** Builders for `columnConfig` entries (`columnConfig.number({ format: 'dollar' })`). */
export const columnConfig = Object.freeze({
  /** Any column, keeping the inferred type; only label/width/help/pinned/hidden. */
  column: (o: ColumnConfigBase = {}): ColumnConfig => ({ ...o }),
  text: make('text') as (o?: Opts) => ColumnConfig,
  number: make('number') as (o?: Opts<'format' | 'min' | 'max' | 'step'>) => ColumnConfig,
  checkbox: make('checkbox') as (o?: Opts) => ColumnConfig,
  selectbox: make('selectbox') as (o?: Opts<'options'>) => ColumnConfig,
  date: make('date') as (o?: Opts<'format' | 'min' | 'max'>) => ColumnConfig,
  datetime: make('datetime') as (o?: Opts<'format'>) => ColumnConfig,
  link: make('link') as (o?: Opts<'displayText'>) => ColumnConfig,
  image: make('image') as (o?: Opts) => ColumnConfig,
  /** A bar from `min` (default 0) to `max` (default 1). */
  progress: make('progress') as (o?: Opts<'format' | 'min' | 'max'>) => ColumnConfig,
  json: make('json') as (o?: Opts) => ColumnConfig,
  /** A sparkline per cell from a list of numbers (issue #36, like `LineChartColumn`). */
  lineChart: make('lineChart') as (o?: Opts<'yMin' | 'yMax'>) => ColumnConfig,
  barChart: make('barChart') as (o?: Opts<'yMin' | 'yMax'>) => ColumnConfig,
  areaChart: make('areaChart') as (o?: Opts<'yMin' | 'yMax'>) => ColumnConfig,
  /** A list per cell, shown as chips; read-only. */
  list: make('list') as (o?: Opts) => ColumnConfig,
  /** A list per cell chosen from `options`; editable in `dataEditor`. */
  multiselect: make('multiselect') as (o?: Opts<'options'>) => ColumnConfig,
  /** A time of day per cell (`"HH:MM:SS"` text, or a Date's UTC time); `format` as for dates (`HH:mm`). */
  time: (o: TimeColumnOptions = {}): ColumnConfig => {
    const { min, max, ...rest } = o
    return { ...rest, type: 'time', ...(min === undefined ? {} : { min: timeSeconds('min', min) }), ...(max === undefined ? {} : { max: timeSeconds('max', max) }) }
  },
})

/** `"HH:MM[:SS]"` → seconds after midnight (how a time column's bounds travel). */
export function timeSeconds(name: string, value: string): number {
  const m = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/.exec(value)
  if (!m) throw new SvcError('SVC_ERR_UI_BAD_CALL', `columnConfig.time(): ${name} ${JSON.stringify(value)} is not a time "HH:MM" or "HH:MM:SS"`)
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0)
}

/** Chart columns: their cells travel as sparkline paths. */
export const CHART_COLUMN_KINDS: Readonly<Partial<Record<ColumnType, 'line' | 'bar' | 'area'>>> = { lineChart: 'line', barChart: 'bar', areaChart: 'area' }

const TYPE_OF_KIND: Record<ColumnKind, ColumnType> = { number: 'number', string: 'text', boolean: 'checkbox', date: 'date', json: 'json' }
const READ_ONLY: ReadonlySet<ColumnType> = new Set(['image', 'progress', 'json', 'lineChart', 'barChart', 'areaChart', 'list'])

export interface ResolvedColumns {
  /** Every column of the data, configured (hidden ones included: the editor returns them). */
  all: DataColumn[]
  /** Indexes into `all` of the shown columns, in display order (pinned first). */
  visible: number[]
}

/** Apply `columnConfig`, `columnOrder` and editor `disabled` to the inferred columns. */
export function resolveColumns(
  columns: readonly { name: string; kind: ColumnKind }[],
  config: Readonly<Record<string, ColumnConfigInput | undefined>> = {},
  order: readonly string[] | undefined = undefined,
  disabled: boolean | readonly string[] = true,
): ResolvedColumns {
  const names = new Set(columns.map((c) => c.name))
  const unknown = [...Object.keys(config), ...(order ?? []), ...(typeof disabled === 'boolean' ? [] : disabled)].filter((n) => !names.has(n))
  if (unknown.length) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `column(s) ${[...new Set(unknown)].map((n) => `"${n}"`).join(', ')} are not in the data (columns: ${[...names].join(', ') || 'none'})`)
  }
  const hidden = new Set<number>()
  const all = columns.map((c, i): DataColumn => {
    const raw = Object.hasOwn(config, c.name) ? config[c.name] : undefined
    if (raw === null) hidden.add(i)
    const cfg: ColumnConfig = typeof raw === 'string' ? { label: raw } : (raw ?? {})
    if (cfg.hidden) hidden.add(i)
    const type = cfg.type ?? TYPE_OF_KIND[c.kind]
    if ((type === 'selectbox' || type === 'multiselect') && !cfg.options?.length) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `column "${c.name}": a ${type} column needs options, e.g. columnConfig.${type}({ options: ['a', 'b'] })`)
    }
    const chart = CHART_COLUMN_KINDS[type] !== undefined
    const colDisabled = disabled === true || (Array.isArray(disabled) && disabled.includes(c.name)) || cfg.disabled === true || READ_ONLY.has(type)
    return {
      name: c.name,
      kind: c.kind,
      type,
      label: cfg.label ?? c.name,
      width: cfg.width ?? null,
      help: cfg.help ?? null,
      pinned: cfg.pinned ?? false,
      format: cfg.format ?? null,
      min: (chart ? cfg.yMin : cfg.min) ?? (type === 'progress' ? 0 : null),
      max: (chart ? cfg.yMax : cfg.max) ?? (type === 'progress' ? 1 : null),
      step: cfg.step ?? null,
      displayText: cfg.displayText ?? null,
      options: cfg.options ? [...cfg.options] : null,
      disabled: colDisabled,
      default: cfg.default ?? null,
    }
  })
  const ordered = order ? [...new Set(order)].map((n) => columns.findIndex((c) => c.name === n)) : columns.map((_c, i) => i)
  const shown = ordered.filter((i) => !hidden.has(i))
  const visible = [...shown.filter((i) => all[i]!.pinned), ...shown.filter((i) => !all[i]!.pinned)]
  return { all, visible }
}
