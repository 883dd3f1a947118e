import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { TIMEOUT_KILLED_NOTICE } from '../../src/eval/index.js';
import { runEvalTool } from '../../src/eval/tool.js';
import { makeExecutor } from '../helpers/executor.js';
import { pidAlive, waitFor } from '../helpers/kernel.js';

const py = (code: string, extra: Record<string, unknown> = {}) => ({
  language: 'py' as const,
  code,
  ...extra,
});

describe('eval tool: sessions', () => {
  it('keeps state from call to call of one session until the executor is disposed', async () => {
    const ex = makeExecutor();
    const first = await runEvalTool({ cells: [py('journal = ["a"]')] }, { executor: ex, id: 'agent-1' });
    expect(first.isError).toBe(false);
    const second = await runEvalTool(
      { cells: [py('journal.append("b")\njournal')] },
      { executor: ex, id: 'agent-1' },
    );
    expect(second.text).toBe("['a', 'b']");
    const other = await runEvalTool({ cells: [py('journal')] }, { executor: ex, id: 'agent-2' });
    expect(other.cells[0]?.error?.ename).toBe('NameError');
    const pids = ex.kernels.map((k) => k.pid as number);
    expect(pids).toHaveLength(2);
    await ex.dispose();
    for (const pid of pids) expect(pidAlive(pid)).toBe(false);
  });

  it('queues whole calls: the cells of two concurrent calls never interleave', async () => {
    const ex = makeExecutor();
    const s = await ex.session({ id: 'q2' });
    await s.run([py('import time\norder = []')]);
    const call = (name: string) =>
      s.run([py(`order.append("${name}0")\ntime.sleep(0.05)`), py(`order.append("${name}1")`)]);
    await Promise.all([call('A'), call('B'), call('C')]);
    const [r] = await s.run([py('order')]);
    expect(r?.text).toBe("['A0', 'A1', 'B0', 'B1', 'C0', 'C1']\n");
  });

  it('interruptAll() cancels running cells through the session signal; the kernel keeps its state', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    await s.run([py('kept = 5')]);
    let started = false;
    const running = s.run([py('import time\ntime.sleep(3600)'), py('never = 1')], {
      onEvent: (_, event) => {
        if (event.kind === 'started') started = true;
      },
    });
    await waitFor(() => started, 60_000, 'the cell to start');
    ex.interruptAll();
    const results = await running;
    expect(results.map((r) => r.status)).toEqual(['cancelled', 'skipped']);
    expect(results[0]?.error?.ename).toBe('KeyboardInterrupt');
    const [after] = await s.run([py('kept')]);
    expect(after?.text).toBe('5\n');
  });
});

describe('executor: deaths we caused are not retried', () => {
  it('a kernel that dies from the timeout interrupt is reported as killed, and the cell ran once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-once-'));
    const counter = join(dir, 'count');
    writeFileSync(counter, '');
    const ex = makeExecutor();
    const s = await ex.session({ cwd: dir }); // writable in a sandbox too
    const [r] = await s.run([
      py(
        `import signal, time\nopen(${JSON.stringify(counter)}, "a").write("x")\nsignal.signal(signal.SIGINT, signal.SIG_DFL)\ntime.sleep(30)`,
        { timeout: 5 },
      ),
    ]);
    expect(readFileSync(counter, 'utf8')).toBe('x');
    expect(r).toMatchObject({
      status: 'cancelled',
      timedOut: true,
      kernelKilled: true,
      retried: false,
      exitCode: 130,
    });
    expect(r?.notices).toEqual([TIMEOUT_KILLED_NOTICE]);
    const [next] = await s.run([py('1 + 1')]);
    expect(next?.text).toBe('2\n');
  });

  it('reports 128 + n for any signal, and says when the kernel was shut down under a cell', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    const [bus] = await s.run([py('import os, signal\nos.kill(os.getpid(), signal.SIGBUS)')]);
    expect(bus?.exitCode).toBe(128 + 7);
    let started = false;
    const running = s.run([py('import time\ntime.sleep(30)')], {
      onEvent: (_, event) => {
        if (event.kind === 'started') started = true;
      },
    });
    await waitFor(() => started, 60_000, 'the cell to start');
    await s.restart();
    const [stopped] = await running;
    expect(stopped?.notices.at(-1)).toBe('The kernel was shut down while this cell was running.');
    expect(stopped?.text).toContain('The kernel was shut down while this cell was running.');
  });

  it('applies backpressure: a slow consumer blocks the cell instead of buffering its output', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    let resumedAt = 0;
    let paused = false;
    let chars = 0;
    let last = '';
    const [r] = await s.run(
      [py('import time\nfor i in range(100_000):\n    print("x" * 99)\nprint("finished at", time.time())')],
      {
        collectOutput: false,
        onEvent: (_, event) => {
          if (event.kind !== 'stdout') return undefined;
          chars += event.text.length;
          last = (last + event.text).slice(-200);
          if (paused) return undefined;
          paused = true;
          return new Promise((resolve) =>
            setTimeout(() => {
              resumedAt = Date.now() / 1000;
              resolve(undefined);
            }, 700),
          );
        },
      },
    );
    expect(r?.status).toBe('ok');
    expect(r?.text).toBe('');
    expect(chars).toBeGreaterThan(10_000_000);
    // 10 MB cannot fit in the pipes: the loop could only finish after the host read again.
    const finishedAt = Number(/finished at ([\d.]+)/.exec(last)?.[1]);
    expect(finishedAt).toBeGreaterThan(resumedAt - 0.05);
  });
});

describe('output sink failures do not take the host down', () => {
  it('saves the full output in a private fallback when the artifacts name is taken', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-tmp-'));
    const uid = process.getuid?.() ?? 'user';
    writeFileSync(join(dir, `omp-eval-artifacts-${uid}`), 'a file where the directory should be');
    const ex = makeExecutor();
    const s = await ex.session();
    // The kernel starts first (its runner file lives in TMPDIR too); then artifacts cannot be written.
    await s.run([py('1')]);
    vi.stubEnv('TMPDIR', dir);
    try {
      const [r] = await s.run([py('for i in range(20_000):\n    print("line", i)')]);
      expect(r?.status).toBe('ok');
      const path = r?.truncation?.artifactPath as string;
      expect(path.startsWith(join(dir, `omp-eval-artifacts-${uid}-`))).toBe(true);
      expect(readFileSync(path, 'utf8')).toContain('line 19999\n');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('degrades to head and tail when the artifact cannot be written', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'omp-tmp-')), 'gone');
    const ex = makeExecutor();
    const s = await ex.session();
    // The kernel starts first (its runner file lives in TMPDIR too); then artifacts cannot be written.
    await s.run([py('1')]);
    vi.stubEnv('TMPDIR', dir);
    try {
      const [r] = await s.run([py('for i in range(20_000):\n    print("line", i)')]);
      expect(r?.status).toBe('ok');
      expect(r?.truncation?.artifact).toBeUndefined();
      expect(r?.truncation?.artifactError).toMatch(/ENOENT/);
      expect(r?.text).toContain('the full output could not be saved');
      expect(r?.text).toContain('line 19999');
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('notebook-facing executor options', () => {
  it('retryOnDeath: false reports a death without running the cell again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-noretry-'));
    const counter = join(dir, 'count');
    writeFileSync(counter, '');
    const ex = makeExecutor();
    const s = await ex.session({ cwd: dir }); // writable in a sandbox too
    const [r] = await s.run(
      [py(`open(${JSON.stringify(counter)}, "a").write("x")\nimport os\nos._exit(4)`)],
      {
        retryOnDeath: false,
      },
    );
    expect(readFileSync(counter, 'utf8')).toBe('x');
    expect(r).toMatchObject({ status: 'error', retried: false, exitCode: 4 });
    expect(r?.notices).toEqual([
      "The Python kernel exited while running this cell (exit code 4): the cell's code ended the process (os._exit(), or exit() in native code), so the cell was not run again. The next cell starts a new kernel: earlier state is gone.",
    ]);
    // No count came for it (it was not the 0 of a kernel that counted nothing).
    expect(r && 'executionCount' in r).toBe(false);
  });

  it('stops a completion that user code holds up, and the kernel keeps its state', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    await s.run([
      py('import time\nclass Hang:\n    def __dir__(self):\n        time.sleep(1000)\nh = Hang()\nkept = 7'),
    ]);
    // (The completion's own limit ends it, here a short one: the tests raise the default.)
    expect(await s.kernelOf('py')?.complete('h.x', 3, 1_000)).toEqual({ matches: [], start: 3, end: 3 });
    const [r] = await s.run([py('kept')]);
    expect(r?.text).toBe('7\n');
    expect(r?.kernelKilled).toBe(false);
  });
});
