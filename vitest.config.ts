import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

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

/**
 * The files that run longest, started first. Without the durations of an earlier run (a fresh
 * clone, as CI's) vitest starts the largest files first, which left the IPython oracle, a small
 * file that runs for 80 s, to the end, alone on one core.
 */
const LONGEST = [
  'integration/ipython-oracle',
  'e2e/tool-results',
  'e2e/commands',
  'integration/remote-kernel',
  'e2e/remote-cli',
  'e2e/remote-notebook',
  'integration/bridge.test',
  'e2e/mcp-clients',
  'integration/executor.test',
  'integration/sandbox-limits',
  'unit/tui-output',
  'integration/mcp-parts',
  'integration/load',
];

/** Vitest's order (projects one after the other), with each project's longest files first. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = LONGEST.findIndex((name) => file.moduleId.includes(`/test/${name}`));
      return at < 0 ? LONGEST.length : at;
    };
    const projects = new Map<string, TestSpecification[]>();
    for (const file of await super.sort(files)) {
      const name = file.project.name;
      projects.set(name, [...(projects.get(name) ?? []), file]);
    }
    // (Array.prototype.sort is stable: the other files keep vitest's order.)
    return [...projects.values()].flatMap((group) => group.sort((a, b) => rank(a) - rank(b)));
  }
}

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
    globalSetup: ['test/globalSetup.ts'],
    sequence: { sequencer: LongestFirst },
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
