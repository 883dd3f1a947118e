import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Above the product's own limits (a kernel's 20 s start-up, 5 s interrupt escalation, cell
    // timeouts of up to a minute in tests), so that a loaded machine slows tests down instead of
    // failing them. Tests wait for conditions, never for time.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Integration tests spawn real kernels and wait on them: three files at a time keep the two
    // cores busy (with two, a sixth of their time went unused).
    fileParallelism: true,
    maxWorkers: 3,
    setupFiles: ['test/setup.ts'],
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'src/**/*.tsx'],
      exclude: ['**/*.d.ts'],
      reporter: ['text-summary', 'text'],
      // The engine's floor (CI fails below it).
      thresholds: { 'src/eval/**': { lines: 85 } },
    },
  },
});
