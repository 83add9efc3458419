import { Writable } from 'node:stream'
import { pino, type Logger } from 'pino'
import { createRootLogger, childLogger, type LoggerSettings } from '../../src/logging/logger.js'
import parsePrometheusTextFormat, { type ParsedMetricFamily } from 'parse-prometheus-text-format'

/** A pino destination that keeps every line: tests read logs as data, field by field. */
export class LogSink extends Writable {
  readonly raw: string[] = []

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    for (const line of chunk.toString('utf8').split('\n')) if (line !== '') this.raw.push(line)
    cb()
  }

  /** Every line parsed as JSON (a line that is not JSON fails the test). */
  records(): Record<string, unknown>[] {
    return this.raw.map((l) => JSON.parse(l) as Record<string, unknown>)
  }

  byLogger(name: string): Record<string, unknown>[] {
    return this.records().filter((r) => r.logger === name)
  }

  text(): string {
    return this.raw.join('\n')
  }
}

/** A root logger writing JSON lines into a fresh sink, and the named child `name`. */
export function captureLogger(
  name = 'svc.gateway',
  settings: Partial<LoggerSettings> = {},
): { sink: LogSink; root: Logger; logger: Logger } {
  const sink = new LogSink()
  const root = createRootLogger({ log_level: 'info', log_format: 'json', ...settings }, sink as unknown as pino.DestinationStream)
  return { sink, root, logger: childLogger(root, name) }
}

export interface ParsedHistogram {
  buckets: Record<string, string>
  count: string
  sum: string
}

export interface ParsedMetrics {
  families: ParsedMetricFamily[]
  /** One metric family, or fail. */
  family(name: string): ParsedMetricFamily
  /** One labelled histogram series (`labels` without `le`), or fail. */
  histogram(name: string, labels: Record<string, string>): ParsedHistogram
}

/**
 * Parse exposition text with parse-prometheus-text-format. That parser folds every series of a
 * histogram into one unlabelled sample, so `histogram()` first cuts out the lines of one label
 * set, drops those labels, and parses that block alone.
 */
export function parseMetrics(text: string): ParsedMetrics {
  const families = parsePrometheusTextFormat(text)
  return {
    families,
    family(name) {
      const f = families.find((x) => x.name === name)
      if (!f) throw new Error(`metric ${name} not in:\n${text}`)
      return f
    },
    histogram(name, labels) {
      const pairs = Object.entries(labels).map(([k, v]) => `${k}="${v}"`)
      const series = text
        .split('\n')
        .filter((l) => /^(\w+)(_bucket|_sum|_count)\{/.test(l) && l.startsWith(name + '_') && pairs.every((p) => l.includes(p)))
        .map((l) => pairs.reduce((line, p) => line.replace(`,${p}`, '').replace(`${p},`, '').replace(p, ''), l).replace('{}', ''))
      const [parsed] = parsePrometheusTextFormat(`# TYPE ${name} histogram\n${series.join('\n')}\n`)
      const sample = parsed?.metrics[0]
      if (!sample?.buckets || sample.count === undefined || sample.sum === undefined) {
        throw new Error(`histogram ${name}${JSON.stringify(labels)} not in:\n${text}`)
      }
      return { buckets: sample.buckets, count: sample.count, sum: sample.sum }
    },
  }
}
