import { describe, expect, it } from 'vitest'
import { childLogger } from '../../../src/logging/logger.js'
import { captureLogger } from '../../helpers/observability-log-sink.js'

describe('childLogger', () => {
  it('names a logger of the tree once, even when given a named child as parent', () => {
    const { sink, root, logger } = captureLogger('svc')
    childLogger(logger, 'svc.gateway').info('from a child of svc')
    childLogger(root, 'svc.api', { worker: 2 }).info('from the root')
    for (const line of sink.raw) expect(line.match(/"logger"/g)).toHaveLength(1)
    expect(sink.records().map((r) => [r.logger, r.worker])).toEqual([
      ['svc.gateway', undefined],
      ['svc.api', 2],
    ])
  })
})
