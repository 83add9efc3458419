import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Type tests (test/types/*.test-d.ts): tsc over them, each @ts-expect-error and expectTypeOf checked.
    typecheck: { enabled: true, include: ['test/types/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Integration tests start real process trees; two cores do not run many at once well.
    maxWorkers: 2,
    reporters: ['default'],
  },
})
