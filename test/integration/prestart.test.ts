/**
 * Issue 13 (commands that start fast): `run` and `tool` spawn their Python kernel's process before
 * the engine loads (prestartPython). The executor runs its first Python kernel in that process
 * when it was spawned for the same working directory, interpreter and environment, and stops it
 * otherwise; an executor that never needs it stops it when disposed.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutor, loadSettings, type PrestartedKernel, prestartPython } from '../../src/eval/index.js';
import { readRecipe, recipeFile } from '../../src/eval/launch/recipe.js';
import { spawnByRecipe } from '../../src/eval/quickstart.js';
import { pidAlive, waitFor } from '../helpers/kernel.js';

const logger = { trace: () => {}, warn: () => {} };
const PID = 'import os\nprint(os.getpid())';
// Only a kernel without a sandbox is started early (the last test): these say so even when the
// suite runs with every kernel sandboxed (npm run test:sandbox sets OMP_EVAL_SANDBOX).
const UNSANDBOXED = { 'sandbox.mode': 'off' } as const;

/** An executor of unsandboxed settings for `hostEnv`, given `kernel` to take. */
const executorWith = (kernel: PrestartedKernel, hostEnv: NodeJS.ProcessEnv) =>
  createExecutor({ settings: loadSettings(UNSANDBOXED, hostEnv), hostEnv, logger, prestarted: kernel });

async function prestarted(cwd: string, hostEnv: NodeJS.ProcessEnv) {
  const kernel = await prestartPython(loadSettings(UNSANDBOXED, hostEnv), { cwd, hostEnv, logger });
  if (!kernel) throw new Error('nothing was prestarted');
  const pid = await kernel.pid;
  expect(pid).toBeTypeOf('number');
  return { kernel, pid: pid as number };
}

describe('a prestarted Python kernel', () => {
  it('is the process the executor runs its first Python cell in', async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'omp-prestart-')));
    const hostEnv = { ...process.env };
    const { kernel, pid } = await prestarted(cwd, hostEnv);
    const executor = executorWith(kernel, hostEnv);
    try {
      const [result] = await executor.runOnce([{ language: 'py', code: PID }], { cwd });
      expect(result?.status).toBe('ok');
      expect(result?.text.trim()).toBe(String(pid));
      // The kernel is a full one: the prelude ran, and its state is kept.
      const session = await executor.session({ cwd });
      const [env] = await session.run([{ language: 'py', code: 'x = 41\nprint(x + 1, callable(env))' }]);
      expect(env?.text.trim()).toBe('42 True');
      await session.release();
    } finally {
      await executor.dispose();
    }
    await waitFor(() => !pidAlive(pid), 60_000, 'the kernel to end with the executor');
  });

  it('is not sandboxed when the settings say so, whatever $OMP_EVAL_SANDBOX says', async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'omp-prestart-')));
    const hostEnv = { ...process.env, OMP_EVAL_SANDBOX: 'workspace-write' };
    const before = process.env.OMP_EVAL_SANDBOX;
    process.env.OMP_EVAL_SANDBOX = 'workspace-write';
    try {
      const { kernel, pid } = await prestarted(cwd, hostEnv);
      const executor = executorWith(kernel, hostEnv);
      try {
        const [result] = await executor.runOnce([{ language: 'py', code: PID }], { cwd });
        // (a sandboxed kernel is in a PID namespace of its own, where it is a small number)
        expect(result?.text.trim()).toBe(String(pid));
      } finally {
        await executor.dispose();
      }
    } finally {
      if (before === undefined) delete process.env.OMP_EVAL_SANDBOX;
      else process.env.OMP_EVAL_SANDBOX = before;
    }
  });

  it('is stopped, and another kernel started, when it was spawned for another directory or environment', async () => {
    const here = realpathSync(mkdtempSync(join(tmpdir(), 'omp-prestart-a-')));
    const there = realpathSync(mkdtempSync(join(tmpdir(), 'omp-prestart-b-')));
    const hostEnv = { ...process.env };
    for (const [spawnedFor, env] of [
      [there, hostEnv],
      // (a variable the kernel's environment keeps: the process had another environment)
      [here, { ...hostEnv, PYTHONWARNINGS: 'error::DeprecationWarning:omp_prestart_test' }],
    ] as const) {
      const { kernel, pid } = await prestarted(spawnedFor, env);
      const executor = executorWith(kernel, hostEnv);
      try {
        const [result] = await executor.runOnce([{ language: 'py', code: PID }], { cwd: here });
        expect(result?.status).toBe('ok');
        expect(result?.text.trim()).not.toBe(String(pid));
        await waitFor(() => !pidAlive(pid), 60_000, 'the unused process to be stopped');
      } finally {
        await executor.dispose();
      }
    }
  });

  it('is stopped when the executor ends without a Python kernel', async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'omp-prestart-js-')));
    const hostEnv = { ...process.env };
    const { kernel, pid } = await prestarted(cwd, hostEnv);
    const executor = executorWith(kernel, hostEnv);
    const [result] = await executor.runOnce([{ language: 'js', code: '1 + 1' }], { cwd });
    expect(result?.text.trim()).toBe('2');
    expect(pidAlive(pid)).toBe(true);
    await executor.dispose();
    await waitFor(() => !pidAlive(pid), 60_000, 'the unused process to be stopped');
  });

  it('is not made for a sandboxed or remote executor', async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'omp-prestart-none-')));
    const hostEnv = { ...process.env };
    for (const flags of [{ 'sandbox.mode': 'read-only' as const }, { 'jupyter.url': 'http://127.0.0.1:9' }])
      expect(await prestartPython(loadSettings(flags, hostEnv), { cwd, hostEnv, logger })).toBeUndefined();
  });

  describe("spawned from the previous call's recipe", () => {
    // (a temp directory of its own, so that the recipe is this test's: the commands other tests
    // run at the same time leave theirs in the shared runner cache)
    let tmpBefore: string | undefined;
    let tmp: string;
    beforeAll(() => {
      tmpBefore = process.env.TMPDIR;
      tmp = realpathSync(mkdtempSync(join(tmpdir(), 'omp-recipe-tmp-')));
      process.env.TMPDIR = tmp;
    });
    afterAll(() => {
      if (tmpBefore === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpBefore;
      rmSync(tmp, { recursive: true, force: true });
    });

    /** A call of prestartPython as `tool` makes it: with the recipe's key and what it spawned. */
    async function call(cwd: string, key: string, settings: Record<string, unknown> = {}) {
      const hostEnv = { ...process.env };
      const fromRecipe = spawnByRecipe(key);
      const kernel = await prestartPython(loadSettings({ ...UNSANDBOXED, ...settings }, hostEnv), {
        cwd,
        hostEnv,
        logger,
        recipeKey: key,
        ...(fromRecipe ? { fromRecipe } : {}),
      });
      if (!kernel) throw new Error('nothing was prestarted');
      return { kernel, pid: (await kernel.pid) as number, recipePid: fromRecipe?.child.pid, hostEnv };
    }

    it('is the process the next identical call runs its cells in', async () => {
      const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'omp-recipe-')));
      const key = `test-${process.pid}-${Date.now()}-same`;
      const first = await call(cwd, key);
      expect(first.recipePid).toBeUndefined(); // (no recipe for this key yet)
      first.kernel.discard();
      expect(readRecipe(key, recipeFile())?.cwd).toBe(cwd);
      const second = await call(cwd, key);
      expect(second.recipePid).toBeTypeOf('number');
      expect(second.pid).toBe(second.recipePid);
      const executor = executorWith(second.kernel, second.hostEnv);
      try {
        const [result] = await executor.runOnce([{ language: 'py', code: PID }], { cwd });
        expect(result?.status).toBe('ok');
        expect(result?.text.trim()).toBe(String(second.pid));
      } finally {
        await executor.dispose();
      }
    });

    it('is not used, and is forgotten, when the kernel must start with a memory limit', async () => {
      const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'omp-recipe-limit-')));
      const key = `test-${process.pid}-${Date.now()}-limit`;
      (await call(cwd, key)).kernel.discard();
      const limited = await call(cwd, key, { 'sandbox.memoryLimitMb': 512 });
      expect(limited.recipePid).toBeTypeOf('number');
      expect(limited.pid).not.toBe(limited.recipePid);
      await waitFor(
        () => !pidAlive(limited.recipePid as number),
        60_000,
        "the recipe's process to be stopped",
      );
      limited.kernel.discard();
      expect(readRecipe(key, recipeFile())).toBeUndefined();
    });

    it('is stopped, and another process spawned, when the call needs another kernel', async () => {
      const here = realpathSync(mkdtempSync(join(tmpdir(), 'omp-recipe-a-')));
      const there = realpathSync(mkdtempSync(join(tmpdir(), 'omp-recipe-b-')));
      const key = `test-${process.pid}-${Date.now()}-other`;
      (await call(there, key)).kernel.discard();
      // (the same key, another directory: as when ./.venv appeared, which the key does not see)
      const next = await call(here, key);
      expect(next.recipePid).toBeTypeOf('number');
      expect(next.pid).not.toBe(next.recipePid);
      await waitFor(() => !pidAlive(next.recipePid as number), 60_000, "the recipe's process to be stopped");
      const executor = executorWith(next.kernel, next.hostEnv);
      try {
        const [result] = await executor.runOnce([{ language: 'py', code: 'import os\nprint(os.getcwd())' }], {
          cwd: here,
        });
        expect(result?.text.trim()).toBe(here);
      } finally {
        await executor.dispose();
      }
    });
  });
});
