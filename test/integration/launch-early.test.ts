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
import { startEarly, takeEarly } from '../../src/modes/early.js';
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

  it('is the process startEarly hands on when the call is the last one, and is stopped when not taken', async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'omp-launch-early-')));
    const argv = ['--cwd', cwd, 'tool'];
    // The first call: no recipe yet; startEarly spawns the process and stores the recipe.
    expect(spawnFirst(argv)?.spawned).toBeUndefined();
    await startEarly(argv);
    const first = takeEarly();
    expect(await first?.pid).toBeTypeOf('number');
    first?.discard();
    // The next: the launcher's process, handed on and taken.
    const handed = spawnFirst(argv);
    const pid = handed?.spawned?.child.pid;
    expect(pid).toBeTypeOf('number');
    await startEarly(argv, handed);
    const second = takeEarly();
    expect(await second?.pid).toBe(pid);
    second?.discard();
    await waitFor(() => !pidAlive(pid as number), 60_000, 'the discarded process to be stopped');
    // One the CLI never takes (its script could not be used): stopped.
    const dropped = spawnFirst(argv);
    const droppedPid = dropped?.spawned?.child.pid;
    expect(droppedPid).toBeTypeOf('number');
    dropFirst(dropped);
    await waitFor(() => !pidAlive(droppedPid as number), 60_000, 'the dropped process to be stopped');
  });
});
