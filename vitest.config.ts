import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests spawn real kernels and time interrupts: keep the two cores uncontended.
    fileParallelism: true,
    maxWorkers: 2,
    setupFiles: ['test/setup.ts'],
  },
});
