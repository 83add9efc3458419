import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Type tests (test/types/*.test-d.ts): tsc over them, each @ts-expect-error and expectTypeOf checked.
    typecheck: { enabled: true, include: ['test/types/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll's own default is 1 s: a page's first render on a loaded 2-core machine takes longer
    // (stop 38's CI failed on exactly that). A poll still fails, after 15 s.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    // Integration tests start real process trees; two cores do not run many at once well.
    maxWorkers: 2,
    reporters: ['default'],
  },
})
