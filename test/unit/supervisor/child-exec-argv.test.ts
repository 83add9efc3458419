import { describe, expect, it } from 'vitest'
import { CHILD_SEMI_SPACE_MB, childExecArgv } from '../../../supervisor/child-exec-argv.js'

describe('childExecArgv', () => {
  it("adds the semi-space size to the supervisor's own flags", () => {
    expect(childExecArgv({}, ['--import', 'tsx'])).toEqual(['--import', 'tsx', `--max-semi-space-size=${CHILD_SEMI_SPACE_MB}`])
  })

  it('keeps a size the user chose in NODE_OPTIONS or on the command line, in either spelling', () => {
    expect(childExecArgv({ NODE_OPTIONS: '--enable-source-maps --max-semi-space-size=16' }, [])).toEqual([])
    expect(childExecArgv({ NODE_OPTIONS: '--max_semi_space_size=32' }, [])).toEqual([])
    expect(childExecArgv({}, ['--max-semi-space-size', '8'])).toEqual(['--max-semi-space-size', '8'])
  })

  it('is not fooled by other flags that start alike', () => {
    expect(childExecArgv({ NODE_OPTIONS: '--max-old-space-size=512' }, [])).toEqual([`--max-semi-space-size=${CHILD_SEMI_SPACE_MB}`])
  })
})
