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

/** Parse exposition text; `family(name)` finds one metric family or fails. */
export function parseMetrics(text: string): { families: ParsedMetricFamily[]; family(name: string): ParsedMetricFamily } {
  const families = parsePrometheusTextFormat(text)
  return {
    families,
    family(name) {
      const f = families.find((x) => x.name === name)
      if (!f) throw new Error(`metric ${name} not in:\n${text}`)
      return f
    },
  }
}
