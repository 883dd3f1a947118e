/**
 * Issue 45: bin/omp-eval.js spawns `run`'s and `tool`'s kernel from the last call's recipe before
 * it reads and compiles the CLI's script (modes/launchEarly.ts), and hands the process to
 * startEarly (modes/early.ts), which gives it to the executor as its own spawn was; a process the
 * CLI does not take is stopped.
 */
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createExecutor, loadSettings } from '../../src/eval/index.js';
import { type EarlySpawn, startEarly, takeEarly } from '../../src/modes/early.js';
import { dropFirst, spawnFirst } from '../../src/modes/launchEarly.js';
import { pidAlive, waitFor } from '../helpers/kernel.js';

describe("the launcher's early spawn", () => {
  let tmp: string;
  beforeAll(() => {
    tmp = realpathSync(mkdtempSync(join(tmpdir(), 'omp-launch-early-tmp-')));
    vi.stubEnv('TMPDIR', tmp); // (the recipe's file is this test's)
    // (only an unsandboxed kernel starts early: npm run test:sandbox sets a sandbox)
    vi.stubEnv('OMP_EVAL_SANDBOX', 'off');
  });
  // (the directory stays: the kernel's bytecode may still be being written in it; the suite's
  // temp root goes at its end)
  afterAll(() => {
    vi.unstubAllEnvs();
  });

  it('is let go and handed on when the call is the last one, runs the cells, and is stopped when not taken', async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'omp-launch-early-')));
    const argv = ['--cwd', cwd, 'tool'];
    // The first call: no recipe yet; startEarly spawns the process and stores the recipe.
    expect(spawnFirst(argv)?.spawned).toBeUndefined();
    await startEarly(argv);
    const first = takeEarly();
    expect(await first?.pid).toBeTypeOf('number');
    first?.discard();
    // The next: the launcher's process, let go at once (its package loads while the CLI compiles)
    // once the kernel's files and bytecode are checked (the first call's compile may still run: a
    // process spawned meanwhile is not let go, and is dropped here), then handed on and taken.
    let handed: EarlySpawn | undefined;
    await waitFor(
      () => {
        handed = spawnFirst(argv);
        if (handed?.spawned?.released) return true;
        dropFirst(handed);
        return false;
      },
      60_000,
      'a process spawned from the recipe and let go',
    );
    const pid = handed?.spawned?.child.pid;
    expect(pid).toBeTypeOf('number');
    await startEarly(argv, handed);
    const second = takeEarly();
    expect(await second?.pid).toBe(pid);
    // It runs the cells (the executor's settings are tool's: the environment filter on).
    const hostEnv = { ...process.env };
    const executor = createExecutor({
      settings: loadSettings({ 'sandbox.mode': 'off', 'env.filter': true }, hostEnv),
      hostEnv,
      logger: { trace: () => {}, warn: () => {} },
      ...(second ? { prestarted: second } : {}),
    });
    try {
      const [result] = await executor.runOnce([{ language: 'py', code: 'import os\nprint(os.getpid())' }], {
        cwd,
      });
      expect(result?.text.trim()).toBe(String(pid));
    } finally {
      await executor.dispose();
    }
    // One the CLI never takes (its script could not be used): stopped.
    const dropped = spawnFirst(argv);
    const droppedPid = dropped?.spawned?.child.pid;
    expect(droppedPid).toBeTypeOf('number');
    dropFirst(dropped);
    await waitFor(() => !pidAlive(droppedPid as number), 60_000, 'the dropped process to be stopped');
  });
});
