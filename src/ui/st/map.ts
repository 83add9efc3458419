import { z } from '../../internal/zod.js'
import { SvcError } from '../../errors.js'
import type { MapProps } from '../wire/elements.js'
import type { MapOptions, TableData } from '../st-types.js'
import { normalizeRaw } from './data.js'

/**
 * `st.map(rows, options)`: points on a basemap. The browser draws them with MapLibre GL in a lazily
 * loaded chunk; here the rows become columns of numbers (and colours), checked once.
 */

const DEFAULT_HEIGHT = 400
const DEFAULT_RADIUS_M = 100
/** Column names looked for when none is given, compared case-insensitively (Streamlit's, plus `lng`). */
const LATITUDE_NAMES = ['lat', 'latitude']
const LONGITUDE_NAMES = ['lon', 'lng', 'long', 'longitude']
const CSS_COLOR = /^(#[0-9a-f]{3,4}|#[0-9a-f]{6}|#[0-9a-f]{8}|(rgba?|hsla?)\([\d\s.,%/+-]+\)|[a-z]{3,30})$/i

const colorTuple = z.array(z.number().finite().min(0)).min(3).max(4)
const options = z
  .object({
    latitude: z.string().optional(),
    longitude: z.string().optional(),
    size: z.union([z.string(), z.number().finite().positive()]).optional(),
    color: z.union([z.string(), colorTuple]).optional(),
    zoom: z.number().min(0).max(22).optional(),
    height: z.number().int().min(50).max(10_000).optional(),
    width: z.number().int().positive().optional(),
    useContainerWidth: z.boolean().optional(),
    columns: z.array(z.string()).optional(),
  })
  .strict()

function bad(message: string): never {
  throw new SvcError('SVC_ERR_UI_BAD_CALL', `map(): ${message}`)
}

function findColumn(names: readonly string[], wanted: string | undefined, defaults: readonly string[], what: string, option: string): number {
  if (wanted !== undefined) {
    const i = names.indexOf(wanted)
    return i >= 0 ? i : bad(`${option} column "${wanted}" is not in the data (columns: ${names.join(', ') || 'none'})`)
  }
  const i = names.findIndex((n) => defaults.includes(n.toLowerCase()))
  return i >= 0 ? i : bad(`no ${what} column: name it ${defaults.map((d) => `"${d}"`).join(' or ')}, or pass { ${option}: "<column>" } (columns: ${names.join(', ') || 'none'})`)
}

function toNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v)
    return Number.isFinite(n) ? n : Number.NaN
  }
  return v === null || v === undefined ? null : Number.NaN
}

/** `[r, g, b]` (0-255) with an optional alpha (0-1, or 0-255 like Streamlit's tuples) → `rgba(...)`. */
function tupleColor(t: readonly number[]): string | null {
  const [r, g, b, a = 1] = t as [number, number, number, number?]
  if ([r, g, b].some((c) => c > 255)) return null
  const alpha = a > 1 ? a / 255 : a
  return alpha > 1 ? null : `rgba(${Math.round(r)}, ${Math.round(g)}, ${Math.round(b)}, ${alpha})`
}

function colorOf(v: unknown): string | null {
  if (typeof v === 'string') return CSS_COLOR.test(v.trim()) ? v.trim() : null
  if (Array.isArray(v)) {
    const parsed = colorTuple.safeParse(v)
    return parsed.success ? tupleColor(parsed.data) : null
  }
  return null
}

export function mapProps(data: TableData, input: MapOptions = {}): MapProps {
  const parsed = options.safeParse(input)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    bad(`option ${issue.path.join('.') || '(options)'} ${issue.message} (options: latitude, longitude, size, color, zoom, height, width, useContainerWidth, columns)`)
  }
  const o = parsed.data
  const { names, raw } = normalizeRaw(data, o.columns)
  const latCol = findColumn(names, o.latitude, LATITUDE_NAMES, 'latitude', 'latitude')
  const lonCol = findColumn(names, o.longitude, LONGITUDE_NAMES, 'longitude', 'longitude')
  const sizeCol = typeof o.size === 'string' ? findColumn(names, o.size, [], 'size', 'size') : -1
  const colorCol = typeof o.color === 'string' && names.includes(o.color) ? names.indexOf(o.color) : -1

  let fixedColor: string | null = null
  if (o.color !== undefined && colorCol < 0) {
    fixedColor = colorOf(o.color) ?? bad(`color ${JSON.stringify(o.color)} is neither a column nor a colour ("#rrggbb", "rgb(…)", a CSS name, or [r, g, b, alpha?])`)
  }

  const lon: number[] = []
  const lat: number[] = []
  const sizes: number[] = []
  const colors: string[] = []
  raw.forEach((row, i) => {
    const y = toNumber(row[latCol])
    const x = toNumber(row[lonCol])
    // Rows without a position are skipped, as a map cannot place them.
    if (y === null || x === null) return
    if (!(y >= -90 && y <= 90)) bad(`row ${i}: latitude ${JSON.stringify(row[latCol])} is not a number from -90 to 90`)
    if (!(x >= -180 && x <= 180)) bad(`row ${i}: longitude ${JSON.stringify(row[lonCol])} is not a number from -180 to 180`)
    lat.push(y)
    lon.push(x)
    if (sizeCol >= 0) {
      const s = toNumber(row[sizeCol])
      if (s === null || !(s >= 0)) bad(`row ${i}: size ${JSON.stringify(row[sizeCol])} is not a radius in metres (a number >= 0)`)
      sizes.push(s)
    }
    if (colorCol >= 0) colors.push(colorOf(row[colorCol]) ?? bad(`row ${i}: color ${JSON.stringify(row[colorCol])} is not a colour ("#rrggbb", "rgb(…)", a CSS name, or [r, g, b, alpha?])`))
  })
  return {
    lon,
    lat,
    size: sizeCol >= 0 ? sizes : typeof o.size === 'number' ? o.size : DEFAULT_RADIUS_M,
    color: colorCol >= 0 ? colors : fixedColor,
    zoom: o.zoom ?? null,
    height: o.height ?? DEFAULT_HEIGHT,
    useContainerWidth: o.useContainerWidth ?? true,
    width: o.width ?? null,
  }
}
