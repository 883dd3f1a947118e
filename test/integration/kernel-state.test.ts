import { describe, expect, it } from 'vitest';
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
