/**
 * The engine's and the kernels' speed tricks turned off (OMP_EVAL_PERF_OFF, src/eval/perfOff.ts):
 * each off path still runs cells, with the same results (docs/performance.md: only speed differs).
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createExecutor, loadSettings, prestartPython } from '../../src/eval/index.js';
import { cachedProbe, storeProbe } from '../../src/eval/launch/probeCache.js';
import { readRecipe, recipeFile } from '../../src/eval/launch/recipe.js';
import { spawnByRecipe } from '../../src/eval/quickstart.js';
import { interruptAfterReady, run, startKernel } from '../helpers/kernel.js';

const logger = { trace: () => {}, warn: () => {} };
// (an early start is only made for an unsandboxed kernel: npm run test:sandbox sets the sandbox)
const UNSANDBOXED = { 'sandbox.mode': 'off' } as const;
const newDir = (prefix: string) => realpathSync(mkdtempSync(join(tmpdir(), prefix)));

afterEach(() => vi.unstubAllEnvs());

describe('prestart and recipe off', () => {
  /** `tool`'s start as modes/early.ts makes it: the recipe's spawn, then prestartPython. */
  async function earlyStart(cwd: string, key: string) {
    const hostEnv = { ...process.env };
    const fromRecipe = spawnByRecipe(key);
    const kernel = await prestartPython(loadSettings(UNSANDBOXED, hostEnv), {
      cwd,
      hostEnv,
      logger,
      recipeKey: key,
      ...(fromRecipe ? { fromRecipe } : {}),
    });
    return { kernel, fromRecipe, hostEnv };
  }

  it('prestart: nothing starts early, and the executor starts its kernel and runs the cell', async () => {
    vi.stubEnv('OMP_EVAL_PERF_OFF', 'prestart');
    const cwd = newDir('omp-perf-prestart-');
    const { kernel, fromRecipe, hostEnv } = await earlyStart(cwd, `perf-${process.pid}-${Date.now()}-p`);
    expect(kernel).toBeUndefined();
    expect(fromRecipe).toBeUndefined();
    const executor = createExecutor({ settings: loadSettings(UNSANDBOXED, hostEnv), hostEnv, logger });
    try {
      const [result] = await executor.runOnce([{ language: 'py', code: 'print(6 * 7)' }], { cwd });
      expect(result?.status).toBe('ok');
      expect(result?.text.trim()).toBe('42');
    } finally {
      await executor.dispose();
    }
  });

  it('recipe: none is stored or spawned from; the early process is still made, and runs the cell', async () => {
    const tmp = newDir('omp-perf-recipe-tmp-');
    vi.stubEnv('TMPDIR', tmp); // (the recipe's file is this test's)
    vi.stubEnv('OMP_EVAL_PERF_OFF', 'recipe');
    try {
      const cwd = newDir('omp-perf-recipe-');
      const key = `perf-${process.pid}-${Date.now()}-r`;
      for (let call = 0; call < 2; call++) {
        const { kernel, fromRecipe, hostEnv } = await earlyStart(cwd, key);
        expect(fromRecipe).toBeUndefined();
        expect(readRecipe(key, recipeFile())).toBeUndefined();
        if (!kernel) throw new Error('nothing was prestarted');
        const executor = createExecutor({
          settings: loadSettings(UNSANDBOXED, hostEnv),
          hostEnv,
          logger,
          prestarted: kernel,
        });
        try {
          const [result] = await executor.runOnce(
            [{ language: 'py', code: 'import os\nprint(os.getpid())' }],
            {
              cwd,
            },
          );
          expect(result?.text.trim()).toBe(String(await kernel.pid));
        } finally {
          await executor.dispose();
        }
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('preimport off (the Python kernel)', () => {
  it('gets the switch through the environment filter, and runs cells that use those modules', async () => {
    vi.stubEnv('OMP_EVAL_PERF_OFF', 'preimport');
    const k = await startKernel({ envFilter: true });
    const r = await run(k, 'import os, json\nprint(os.environ["OMP_EVAL_PERF_OFF"], json.dumps([1, 2]))');
    expect(r.stdout).toBe('preimport [1, 2]\n');
  });
});

describe('probe-cache off', () => {
  it('keeps no probe, as OMP_EVAL_NO_PROBE_CACHE=1', () => {
    const dir = newDir('omp-perf-probe-');
    const env = { PATH: '/usr/bin', HOME: dir };
    const probe = { executable: process.execPath, version: [3, 99, 0] as [number, number, number] };
    const off = { ...env, OMP_EVAL_PERF_OFF: 'probe-cache' };
    storeProbe(join(dir, 'python'), off, dir, probe);
    expect(cachedProbe(join(dir, 'python'), env, dir)).toBeUndefined();
    storeProbe(join(dir, 'python'), env, dir, probe);
    expect(cachedProbe(join(dir, 'python'), env, dir)).toEqual(probe);
    expect(cachedProbe(join(dir, 'python'), off, dir)).toBeUndefined();
  });
});

describe('pump-batch off (the JavaScript kernel)', () => {
  it('gets the switch, and delivers all output in order, a line before a long computation at once', async () => {
    vi.stubEnv('OMP_EVAL_PERF_OFF', 'pump-batch');
    const k = await startKernel({ language: 'js' });
    const result = (await run(k, 'process.env.OMP_EVAL_PERF_OFF')).frames.find((f) => f.type === 'result');
    expect(result && 'bundle' in result && result.bundle['text/plain']).toBe("'pump-batch'");
    const lines = 50_000;
    const r = await run(k, `for (let i = 0; i < ${lines}; i++) console.log("line " + i)`);
    expect(r.stdout).toBe(Array.from({ length: lines }, (_, i) => `line ${i}\n`).join(''));
    // (as test/integration/js-output.test.ts: the host interrupts once "ready" came; were the line
    // held until the loop ends, the cell would never end)
    const { outcome, frames } = await interruptAfterReady(k, 'console.log("ready"); for (;;) {}');
    expect(outcome.cancelled).toBe(true);
    expect(frames.flatMap((f) => (f.type === 'stdout' ? [f.data] : []))).toEqual(['ready\n']);
  });
});
