import { describe, expect, it } from 'vitest';
import { Kernel, type KernelHandle } from '../../src/eval/index.js';
import { executorBackend } from '../../src/tui/backend.js';
import { makeExecutor } from '../helpers/executor.js';
import { startKernel, waitFor } from '../helpers/kernel.js';

describe('kernel states are published, not polled', () => {
  it('a kernel tells its subscribers every change: busy, interrupting, idle, stopping, dead', async () => {
    const k = await startKernel();
    const seen: string[] = [];
    k.onState((state) => seen.push(state));
    await k.execute('1 + 1');
    let printed = false;
    const running = k.execute('import time\nprint("ready", flush=True)\ntime.sleep(30)', {
      onFrame: (f) => {
        if (f.type === 'stdout') printed = true;
      },
    });
    await waitFor(() => printed, 60_000, 'the cell to print');
    k.interrupt();
    await running;
    await k.shutdown();
    expect(seen).toEqual(['busy', 'idle', 'busy', 'interrupting', 'idle', 'stopping', 'dead']);
  });

  it('a session publishes its kernels coming, working and going; the notebook backend its status', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    const seen: string[] = [];
    s.onKernelState((language, state) => seen.push(`${language}:${state}`));
    const backend = await executorBackend(ex, { cwd: process.cwd() });
    const statuses: string[] = [];
    backend.onKernelState((state) => statuses.push(state));
    await s.run([{ language: 'py', code: '1' }]);
    await s.restart();
    expect(seen).toEqual(['py:idle', 'py:busy', 'py:idle', 'py:none']);
    // A subscriber hears the status at once; the backend's own session (another key) did not
    // start a kernel, so its status never changed.
    expect(statuses).toEqual(['none']);
    await backend.start();
    await backend.runCell({ code: '2', onEvent: () => {} });
    expect(statuses).toEqual(['none', 'idle', 'busy', 'idle']);
    expect(backend.kernelState()).toBe('idle');
  });
});

describe('one kernel per language, however many ask at once', () => {
  it('start() twice and a cell, all at once after a restart, share one kernel that dispose ends', async () => {
    const started: KernelHandle[] = [];
    const ex = makeExecutor({
      kernelFactories: {
        py: async (options) => {
          const kernel = await Kernel.start(options);
          started.push(kernel);
          return kernel;
        },
      },
    });
    const s = await ex.session();
    await s.start('py');
    // The notebook's /restart: the kernel goes, the status hook starts the next one while the
    // user's next cell asks for it too.
    await s.restart();
    const [, , [result]] = await Promise.all([
      s.start('py'),
      s.start('py'),
      s.run([{ code: 'x = 1\nx + 1' }]),
    ]);
    expect(started).toHaveLength(2);
    expect(result?.text.trim()).toBe('2');
    expect(s.kernelOf('py')).toBe(started[1]);
    await ex.dispose();
    expect(started.map((k) => k.state)).toEqual(['dead', 'dead']);
  });
});

describe('dispose', () => {
  it('a second dispose() resolves only once the first has shut the kernels down', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    await s.start('py');
    const kernel = s.kernelOf('py') as KernelHandle;
    const first = ex.dispose('a signal');
    await ex.dispose();
    expect(kernel.state).toBe('dead');
    await first;
  });
});
