import { cpus } from 'node:os'

export const MIB = 1024 * 1024

export function machineLine(): string {
  const list = cpus()
  return `machine: ${list[0]?.model.trim() ?? 'unknown CPU'}, ${list.length} cores, node ${process.version}, ${process.platform}/${process.arch}`
}

/** Nearest-rank percentile of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b)
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)))
  return sorted[rank - 1]!
}

export function mean(samples: readonly number[]): number {
  return samples.reduce((a, b) => a + b, 0) / samples.length
}

/** Least-squares slope of y over x. */
export function slope(points: readonly { x: number; y: number }[]): number {
  const mx = mean(points.map((p) => p.x))
  const my = mean(points.map((p) => p.y))
  let num = 0
  let den = 0
  for (const p of points) {
    num += (p.x - mx) * (p.y - my)
    den += (p.x - mx) ** 2
  }
  return den === 0 ? 0 : num / den
}

export function ms(n: number): string {
  return n >= 10 ? n.toFixed(1) : n.toFixed(2)
}

/** A difference in ms with its sign: `+0.43`, `-0.29`. */
export function signed(n: number): string {
  return `${n < 0 ? '-' : '+'}${ms(Math.abs(n))}`
}

export function ratio(a: number, b: number): string {
  return `${(a / b).toFixed(1)}x`
}

/** Left-aligned first column, right-aligned others. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  console.log(line(header))
  for (const r of rows) console.log(line(r))
}
