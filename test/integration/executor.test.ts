import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TIMEOUT_KILLED_NOTICE, TIMEOUT_NOTICE } from '../../src/eval/index.js';
import { makeExecutor } from '../helpers/executor.js';
import { groupAlive, pidAlive, waitFor } from '../helpers/kernel.js';

const py = (code: string, extra: Record<string, unknown> = {}) => ({
  language: 'py' as const,
  code,
  ...extra,
});

describe('executor: sessions', () => {
  it('keeps state across calls of one session, shared by its owners', async () => {
    const ex = makeExecutor();
    const a = await ex.session({ id: 's1' });
    const b = await ex.session({ id: 's1' });
    await a.run([py('x = 41')]);
    const [r] = await b.run([py('x + 1')]);
    expect(r?.text).toBe('42\n');
    expect(a.kernel?.pid).toBe(b.kernel?.pid);
    const pid = a.kernel?.pid as number;
    await a.release();
    expect(pidAlive(pid)).toBe(true);
    await b.release();
    expect(pidAlive(pid)).toBe(false);
  });

  it('keeps sessions with different ids or working directories apart', async () => {
    const ex = makeExecutor();
    const a = await ex.session({ id: 'a' });
    const b = await ex.session({ id: 'b' });
    const c = await ex.session({ id: 'a', cwd: tmpdir() });
    await a.run([py('v = "a"')]);
    const [rb] = await b.run([py('v')]);
    const [rc] = await c.run([py('v')]);
    expect(rb?.error?.ename).toBe('NameError');
    expect(rc?.error?.ename).toBe('NameError');
  });

  it('per-call mode gives every call a fresh kernel and leaves none running', async () => {
    const ex = makeExecutor({ settings: { 'python.kernelMode': 'per-call' } });
    const s = await ex.session({ id: 'p' });
    let pid: number | undefined;
    await s.run([py('y = 1')], { onEvent: () => (pid ??= s.kernel?.pid) });
    const [second] = await s.run([py('y')]);
    expect(second?.error?.ename).toBe('NameError');
    expect(pid).toBeDefined();
    expect(pidAlive(pid as number)).toBe(false);
    expect(groupAlive(pid as number)).toBe(false);
    expect(ex.kernels).toEqual([]);
  });

  it('queues concurrent calls on one session instead of overlapping them', async () => {
    const ex = makeExecutor();
    const s = await ex.session({ id: 'q' });
    await s.run([py('import time\nlog = []')]);
    const calls = [0, 1, 2, 3].map((i) =>
      s.run([py(`log.append(("start", ${i}))\ntime.sleep(0.1)\nlog.append(("end", ${i}))`)]),
    );
    await Promise.all(calls);
    const [r] = await s.run([py('print(log)')]);
    expect(r?.text.trim()).toBe(
      "[('start', 0), ('end', 0), ('start', 1), ('end', 1), ('start', 2), ('end', 2), ('start', 3), ('end', 3)]",
    );
  });

  it('validates the working directory before anything starts', async () => {
    const ex = makeExecutor();
    await expect(ex.session({ cwd: '/definitely/not/here' })).rejects.toThrow(
      'Working directory does not exist: /definitely/not/here',
    );
    await expect(ex.session({ cwd: '/etc/hostname' })).rejects.toThrow(
      'Working directory is not a directory: /etc/hostname',
    );
  });

  it('reset: true starts the cell in a fresh kernel', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    await s.run([py('kept = 1')]);
    const before = s.kernel?.pid;
    const [r] = await s.run([py('"kept" in globals()', { reset: true })]);
    expect(r?.text).toBe('False\n');
    expect(r?.executionCount).toBe(1);
    expect(s.kernel?.pid).not.toBe(before);
    expect(pidAlive(before as number)).toBe(false);
  });
});

describe('executor: kernel death', () => {
  it('retries a cell once in a new kernel when the kernel dies under it, and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-retry-'));
    const marker = join(dir, 'crashed-once');
    const ex = makeExecutor();
    const s = await ex.session({ cwd: dir }); // writable in a sandbox too
    const [r] = await s.run([
      py(
        `import os, signal\nif not os.path.exists(${JSON.stringify(marker)}):\n    open(${JSON.stringify(marker)}, "w").close()\n    os.kill(os.getpid(), signal.SIGSEGV)\nprint("second try")`,
      ),
    ]);
    expect(r?.status).toBe('ok');
    expect(r?.retried).toBe(true);
    expect(r?.notices[0]).toMatch(
      /died while running this cell \(signal SIGSEGV\); a new kernel was started and the cell was retried once/,
    );
    expect(r?.text).toContain('second try');
    expect(r?.text).toContain('retried once');
  });

  it('does not run again a cell whose code ended the kernel (os._exit): what it did happens once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-exit-'));
    const log = join(dir, 'log');
    const ex = makeExecutor();
    const s = await ex.session({ cwd: dir });
    for (const code of [0, 3]) {
      const [r] = await s.run([
        py(`open(${JSON.stringify(log)}, "a").write("ran\\n")\nimport os\nos._exit(${code})`),
      ]);
      expect(r).toMatchObject({ status: 'error', retried: false, exitCode: code });
      expect(r?.notices.at(-1)).toBe(
        `The Python kernel exited while running this cell (exit code ${code}): the cell's code ended the process (os._exit(), or exit() in native code), so the cell was not run again. The next cell starts a new kernel: earlier state is gone.`,
      );
    }
    expect(readFileSync(log, 'utf8')).toBe('ran\nran\n');
    const [next] = await s.run([py('1 + 1')]);
    expect(next?.text).toBe('2\n');
  });

  it('reports a second death as an error with the exit code or signal', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    const [r] = await s.run([py('import ctypes\nctypes.string_at(0)')]);
    expect(r).toMatchObject({ status: 'error', retried: true, exitCode: 139 });
    expect(r?.notices.at(-1)).toBe('The Python kernel died again on the retry (signal SIGSEGV).');
    expect(r?.error?.evalue).toContain('signal SIGSEGV');
  });

  it('replaces a kernel that died between calls before the next execution', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    await s.run([
      py(
        'import os, threading, time\nthreading.Thread(target=lambda: (time.sleep(0.2), os._exit(5))).start()',
      ),
    ]);
    const pid = s.kernel?.pid as number;
    await waitFor(() => s.kernel?.state === 'dead', 60_000, 'the kernel to die');
    const [r] = await s.run([py('1 + 1')]);
    expect(r?.status).toBe('ok');
    expect(r?.text).toBe('2\n');
    expect(r?.notices[0]).toMatch(
      /previous Python kernel had exited \(exit code 5\); a new kernel was started/,
    );
    expect(s.kernel?.pid).not.toBe(pid);
  });
});

describe('executor: timeouts and cancellation', () => {
  it('interrupts a cell at its timeout and annotates the result; the kernel stays', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    await s.run([py('state = "kept"')]);
    const [r] = await s.run([py('import time\ntime.sleep(3600)', { timeout: 1 })]);
    expect(r).toMatchObject({ status: 'cancelled', timedOut: true, kernelKilled: false, exitCode: 130 });
    expect(r?.notices).toEqual([TIMEOUT_NOTICE(1)]);
    expect(TIMEOUT_NOTICE(1)).toBe(
      'eval cell timed out after 1s; kernel interrupted but remains running. Reset the kernel via { reset: true } if state appears corrupted.',
    );
    const [after] = await s.run([py('state')]);
    expect(after?.text).toBe("'kept'\n");
  });

  it('kills a kernel that ignores the interrupt after a timeout, without retrying the cell', async () => {
    const ex = makeExecutor({ interruptEscalationMs: 800, shutdownGraceMs: 300 });
    const s = await ex.session();
    const [r] = await s.run([
      py(
        'import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    time.sleep(0.05)',
        {
          timeout: 5,
        },
      ),
    ]);
    expect(r).toMatchObject({ status: 'cancelled', timedOut: true, kernelKilled: true, retried: false });
    expect(r?.notices).toEqual([TIMEOUT_KILLED_NOTICE]);
    const [next] = await s.run([py('"fresh"')]);
    expect(next?.text).toBe("'fresh'\n");
  });

  it('does not count kernel start-up against the cell budget', async () => {
    // A start-up (prelude) of 3 s and a cell of next to nothing under a 2 s budget.
    const ex = makeExecutor({ prelude: 'import time\ntime.sleep(3)' });
    const [r] = await ex.runOnce([py('"ok"', { timeout: 2 })]);
    expect(r).toMatchObject({ status: 'ok', timedOut: false, text: "'ok'\n" });
  });

  it('a timeout-pause status bundle a cell displays itself does not pause its timeout', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    const [r] = await s.run([
      py(
        [
          'import time',
          'display({"application/x-omp-status": {"op": "timeout-pause"}}, raw=True)',
          'time.sleep(3600)',
        ].join('\n'),
        { timeout: 1 },
      ),
    ]);
    expect(r).toMatchObject({ status: 'cancelled', timedOut: true });
    expect(r?.statusEvents).toEqual([]);
  });

  it('a caller abort cancels without a timeout annotation and skips later cells', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    const controller = new AbortController();
    const results = await s.run([py('import time\ntime.sleep(3600)'), py('never = 1')], {
      signal: controller.signal,
      onEvent: (_, event) => {
        if (event.kind === 'started') controller.abort();
      },
    });
    expect(results[0]).toMatchObject({ status: 'cancelled', timedOut: false, notices: [] });
    expect(results[1]?.status).toBe('skipped');
  });

  it('disposing the executor aborts running cells and shuts kernels down', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    let started = false;
    const running = s.run([py('import time\ntime.sleep(3600)')], {
      onEvent: (_, event) => {
        if (event.kind === 'started') started = true;
      },
    });
    // Disposed while the cell runs (not while its kernel starts): there is a pid to check.
    await waitFor(() => started, 60_000, 'the cell to start');
    const pid = s.kernel?.pid as number;
    expect(pidAlive(pid)).toBe(true);
    await ex.dispose();
    const [r] = await running;
    expect(r?.status).not.toBe('ok');
    expect(pidAlive(pid)).toBe(false);
  });
});

describe('executor: multi-cell runs and output', () => {
  it('stops at the failing cell; earlier state persists; later cells are skipped', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    const results = await s.run([py('a = 1'), py('raise ValueError("cell two")'), py('b = 2')]);
    expect(results.map((r) => r.status)).toEqual(['ok', 'error', 'skipped']);
    expect(results[1]?.exitCode).toBe(1);
    const [check] = await s.run([py('("a" in globals(), "b" in globals())')]);
    expect(check?.text).toBe('(True, False)\n');
  });

  it('collects results, JSON, images and status events per cell', async () => {
    const ex = makeExecutor();
    const [r] = await ex.runOnce([
      py(
        [
          'import base64',
          'png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAYAAAC56t6BAAAAEElEQVR4nGNgYGD4z4AKAAH+AQHx3/eRAAAAAElFTkSuQmCC")',
          'display({"image/png": base64.b64encode(png).decode(), "text/plain": "<img>"}, raw=True)',
          'display({"application/json": {"k": [1, 2]}, "text/plain": "{json}"}, raw=True)',
          '_emit_status("find", count=3)',
          '"done"',
        ].join('\n'),
      ),
    ]);
    expect(r?.images).toEqual([expect.objectContaining({ mime: 'image/png', width: 2, height: 3 })]);
    expect(r?.json).toEqual([{ k: [1, 2] }]);
    expect(r?.statusEvents).toEqual([{ op: 'find', count: 3 }]);
    // A status event is a short line of the text too (an agent reads the text), and so is an
    // image where it was shown.
    expect(r?.text).toBe('<img>\n[image 2×3 png]\n{json}\n[find] {"count":3}\n\'done\'\n');
  });

  it('keeps 100 MB of output out of memory: head and tail shown, all of it in the artifact', async () => {
    const ex = makeExecutor();
    global.gc?.();
    const before = process.memoryUsage().rss;
    const [r] = await ex.runOnce(
      [py('import sys\nline = "y" * 99 + "\\n"\nfor i in range(1_000_000):\n    sys.stdout.write(line)')],
      {
        defaultTimeout: 120,
      },
    );
    const grown = process.memoryUsage().rss - before;
    expect(r?.status).toBe('ok');
    expect(r?.truncation?.totalChars).toBe(100_000_000);
    expect(r?.text.length).toBeLessThan(60_000);
    const path = r?.truncation?.artifactPath as string;
    expect(existsSync(path)).toBe(true);
    expect(statSync(path).size).toBe(100_000_000);
    expect(readFileSync(path, 'utf8').slice(0, 200)).toBe(`${'y'.repeat(99)}\n${'y'.repeat(99)}\n`);
    expect(grown).toBeLessThan(300 * 1024 * 1024);
  });
});
