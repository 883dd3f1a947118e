import { defineConfig } from 'vitest/config';

/**
 * Test files that need a process of their own: they mock modules (vi.mock), spy on or stub what
 * other files use, read a module's process-wide state from its start (the host guard), or measure
 * the process's memory.
 */
const ISOLATED = [
  'test/integration/executor-edges.test.ts',
  'test/integration/executor.test.ts',
  'test/integration/lifecycle.test.ts',
  'test/integration/load.test.ts',
  'test/integration/mcp-parts.test.ts',
  'test/integration/sandbox-limits.test.ts',
  'test/tui/history-load.test.tsx',
  'test/unit/channel.test.ts',
  'test/unit/host-guard-soon.test.ts',
  'test/unit/result-bounds.test.ts',
  'test/unit/tui-memory.test.ts',
  'test/unit/tui-output.test.ts',
  'test/unit/tui-ticks.test.ts',
  'test/unit/tui-width.test.ts',
  'test/unit/watchdog.test.ts',
];
const ALL = ['test/**/*.test.ts', 'test/**/*.test.tsx'];

export default defineConfig({
  test: {
    // Above the product's own limits (a kernel's 20 s start-up, 5 s interrupt escalation, cell
    // timeouts of up to a minute in tests), so that a loaded machine slows tests down instead of
    // failing them. Tests wait for conditions, never for time.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Integration tests spawn real kernels and wait on them: three files at a time keep the two
    // cores busy (with two, a sixth of their time went unused; with four, the suite took longer).
    fileParallelism: true,
    maxWorkers: 3,
    setupFiles: ['test/setup.ts'],
    // The other files share their workers' module graphs (no new process and no new imports per
    // file): the suite spent a seventh of its CPU starting workers and importing anew.
    projects: [
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
      { extends: true, test: { name: 'shared', include: ALL, exclude: ISOLATED, isolate: false } },
    ],
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
