/**
 * Issue 13 items 3-5 and issue 14 item 21 where they need calls of one embedded session (as the
 * MCP server makes them): the tool's own function, on a real executor and real kernels.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pendingWorkNotice } from '../../src/eval/executor/pending.js';
import { runEvalTool } from '../../src/eval/index.js';
import { makeExecutor } from '../helpers/executor.js';
import { waitFor } from '../helpers/kernel.js';

const py = (code: string, extra: Record<string, unknown> = {}) => ({
  language: 'py' as const,
  code,
  ...extra,
});

describe('item 3: only the cell’s own bridge calls pause its timeout', () => {
  it('an agent() call from a thread of an earlier call does not pause a later cell’s watchdog', async () => {
    const executor = makeExecutor({ settings: { 'bridge.agentCommand': 'sleep 3600' } });
    const call = (cells: ReturnType<typeof py>[]) => runEvalTool({ cells }, { executor, id: 'stray' });
    const first = await call([
      py(
        [
          'import threading',
          'go, calling = threading.Event(), threading.Event()',
          'def later():',
          '    go.wait()',
          '    calling.set()',
          '    try:',
          '        agent("stray")',
          '    except Exception:',
          '        pass',
          'threading.Thread(target=later, daemon=True).start()',
        ].join('\n'),
      ),
    ]);
    expect(first.isError).toBe(false);
    const second = await call([
      py('import time\ngo.set()\ncalling.wait(60)\ntime.sleep(60)', { timeout: 2 }),
    ]);
    const [cell] = second.cells;
    // The stray call was in flight while this cell ran (its status is shown here) ...
    expect(cell?.statusEvents).toContainEqual(expect.objectContaining({ op: 'agent', state: 'started' }));
    // ... and the cell's own timeout fired all the same.
    expect(cell).toMatchObject({ timedOut: true, status: 'cancelled' });
  });
});

describe('item 4: what a caller is told when its kernel went away', () => {
  it('a queued caller whose cell runs in a fresh kernel (the earlier caller’s was killed) is told state was lost', async () => {
    const executor = makeExecutor({ interruptEscalationMs: 500, shutdownGraceMs: 300 });
    // (the signal files live in the kernel's cwd: a sandboxed kernel writes only there)
    const dir = mkdtempSync(join(tmpdir(), 'omp-queued-'));
    const ctx = { executor, id: 'queued', cwd: dir };
    await runEvalTool({ cells: [py('kept = 1')] }, ctx);
    const started = join(dir, 'started');
    const stuck = runEvalTool(
      {
        cells: [
          py(
            `import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nopen(${JSON.stringify(started)}, "w").close()\nwhile True:\n    time.sleep(0.05)`,
            { timeout: 5 },
          ),
        ],
      },
      ctx,
    );
    await waitFor(() => existsSync(started), 60_000, 'the first call to run');
    const queued = runEvalTool({ cells: [py('"kept" in globals()')] }, ctx);
    const [a, b] = await Promise.all([stuck, queued]);
    expect(a.cells[0]).toMatchObject({ timedOut: true, kernelKilled: true });
    expect(b.cells[0]?.text).toContain('False');
    expect(b.cells[0]?.notices[0]).toBe(
      'The previous Python kernel was killed after it did not respond to an interrupt; a new kernel was started and earlier state is gone.',
    );
    expect(b.text).toContain('earlier state is gone');
  });

  it('disposing the executor mid-cell gets its own message, not "did not respond to the interrupt"', async () => {
    const executor = makeExecutor();
    const dir = mkdtempSync(join(tmpdir(), 'omp-dispose-'));
    const started = join(dir, 'started');
    const running = runEvalTool(
      { cells: [py(`open(${JSON.stringify(started)}, "w").close()\nimport time\ntime.sleep(3600)`)] },
      { executor, cwd: dir },
    );
    await waitFor(() => existsSync(started), 60_000, 'the cell to start');
    await executor.dispose();
    const r = await running;
    expect(r.cells[0]?.notices).toEqual([
      'omp-eval was shutting down (the executor was disposed) while this cell ran: the cell was stopped and the Python kernel was ended, so its state is gone.',
    ]);
    expect(r.text).not.toContain('did not respond to the interrupt');
  });
});

describe('disposing the executor while the kernel starts', () => {
  it('cancels the cell with the reason, not "the kernel could not be started"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-dispose-start-'));
    const starting = join(dir, 'starting');
    // A prelude that never ends: the kernel stays in its start-up.
    const executor = makeExecutor({
      prelude: `open(${JSON.stringify(starting)}, "w").close()\nimport time\ntime.sleep(3600)\n`,
    });
    const running = runEvalTool({ cells: [py('1 + 1')] }, { executor, cwd: dir });
    await waitFor(() => existsSync(starting), 60_000, 'the kernel to be starting');
    await executor.dispose('omp-eval received SIGTERM');
    const r = await running;
    expect(r.cells[0]).toMatchObject({ status: 'cancelled', exitCode: 130 });
    expect(r.cells[0]?.notices).toEqual([
      'omp-eval was shutting down (omp-eval received SIGTERM) before this cell ran: it was not run.',
    ]);
    expect(r.text).not.toContain('could not be started');
  });
});

describe('item 5: the session key tells a venv from its base interpreter', () => {
  it('when ./.venv appears, the session keeps its interpreter and names and says so; a new session runs in the venv', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-venv-key-'));
    const hostEnv = { PATH: process.env.PATH, HOME: dir };
    const executor = makeExecutor({ hostEnv });
    const ctx = { executor, id: 'venv', cwd: dir, env: hostEnv };
    const where = py('import sys\nprint(sys.prefix)\nprint(sys.executable)');
    const before = await runEvalTool({ cells: [where, py('kept = 1')] }, ctx);
    const [prefix, base] = (before.cells[0]?.text ?? '').trim().split('\n') as [string, string];
    expect(prefix).not.toContain('.venv');
    // A venv of the very interpreter the first call ran: its python resolves to the same file.
    execFileSync(base, ['-m', 'venv', '--without-pip', join(dir, '.venv')]);
    const after = await runEvalTool({ cells: [where, py('print(kept)')] }, ctx);
    expect(after.cells[0]?.text.trim().split('\n')[0]).toBe(prefix);
    expect(after.text).toContain('A different Python would now be chosen here');
    expect(after.cells[1]?.text).toBe('1\n');
    // Said once: the call after it is quiet.
    const again = await runEvalTool({ cells: [where] }, ctx);
    expect(again.text).not.toContain('A different Python');
    const fresh = await runEvalTool({ cells: [where] }, { ...ctx, id: 'venv-new' });
    expect(fresh.text.trim().split('\n')[0]).toBe(join(dir, '.venv'));
  });
});

describe('issue 14 item 21: output threads print between calls reaches the next call', () => {
  it('as background output of the next call’s result', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-background-'));
    const go = join(dir, 'go');
    const printed = join(dir, 'printed');
    const executor = makeExecutor();
    const ctx = { executor, id: 'background', cwd: dir };
    await runEvalTool(
      {
        cells: [
          py(
            [
              'import os, threading, time',
              'def later():',
              `    while not os.path.exists(${JSON.stringify(go)}):`,
              '        time.sleep(0.02)',
              '    print("written between calls", flush=True)',
              `    open(${JSON.stringify(printed)}, "w").close()`,
              'threading.Thread(target=later, daemon=True).start()',
            ].join('\n'),
          ),
        ],
      },
      ctx,
    );
    writeFileSync(go, '');
    await waitFor(() => existsSync(printed), 60_000, 'the thread to print');
    const next = await runEvalTool({ cells: [py('1 + 1')] }, ctx);
    expect(next.cells[0]?.background).toBe('written between calls\n');
    expect(next.text).toBe(
      "[output of earlier cells' threads or timers, written outside any cell:]\nwritten between calls\n[end of that output]\n2",
    );
  });
});

describe('a one-shot call names the processes its cells left running', () => {
  // (npm run test:sandbox runs this with every kernel in bwrap, whose process namespace ends with
  // the kernel: there a process in a session of its own is stopped, and named, too)
  it('names them with their pids; none when the cells waited for theirs', async () => {
    // (as `omp-eval tool`: a session of its own per call, whose kernels end with it)
    const executor = makeExecutor();
    try {
      const left = await runEvalTool(
        {
          cells: [
            py(
              'import subprocess\nsubprocess.Popen(["sleep", "300"])\nsubprocess.run(["true"])\nprint("ok")',
            ),
          ],
        },
        { executor, id: 'left', kernelsEndWithCall: true },
      );
      expect(left.cells[0]?.notices.at(-1)).toMatch(
        /^Work was still running in the kernel when this call ended \(a process: sleep 300 \[pid \d+\]\)\..*the process it started is stopped with it/,
      );
      const none = await runEvalTool(
        {
          cells: [
            py('import subprocess\np = subprocess.Popen(["sleep", "0"])\np.wait()'),
            // (multiprocessing's own helpers, its fork server and resource tracker, are not the cells'.
            // A sandbox refuses the fork server's Unix socket: spawn's resource tracker there.)
            py(
              `import multiprocessing as mp\nwith mp.get_context("${process.env.OMP_EVAL_SANDBOX ? 'spawn' : 'forkserver'}").Pool(1) as pool:\n    print(pool.map(abs, [-1]))`,
            ),
          ],
        },
        { executor, id: 'none', kernelsEndWithCall: true },
      );
      expect(none.cells[1]?.text).toBe('[1]\n');
      expect(none.cells.flatMap((c) => c.notices)).toEqual([]);
    } finally {
      await executor.dispose();
    }
  });

  it('asks in silent cells: no execution count, no _, in either kernel', async () => {
    const executor = makeExecutor();
    try {
      const s = await executor.session({ id: 'silent-check', retain: true });
      const check: Parameters<typeof s.run>[1] = {
        afterCells: async (ran, runMore) => {
          const notice = await pendingWorkNotice(s, ['py', 'js'], runMore);
          if (notice) ran.at(-1)?.notices.push(notice);
        },
      };
      const [py1] = await s.run(
        [
          py(
            'import threading\nthreading.Thread(target=threading.Event().wait, name="poller", daemon=False).start()\n41',
          ),
        ],
        check,
      );
      expect(py1?.notices.at(-1)).toMatch(/^Work was still running .*Python threads: poller/);
      const [js1] = await s.run(
        [{ language: 'js', code: 'globalThis.t = setInterval(() => {}, 1000); 7' }],
        check,
      );
      expect(js1?.notices.at(-1)).toMatch(/JavaScript timers and handles: Timeout×1/);
      // The checks took no count and left `_` as the cells made it.
      const [py2] = await s.run([py('_')]);
      expect(py2).toMatchObject({ executionCount: (py1?.executionCount ?? 0) + 1, text: '41\n' });
      const [js2] = await s.run([{ language: 'js', code: 'clearInterval(t); _' }]);
      expect(js2?.text).toBe('7\n');
    } finally {
      await executor.dispose();
    }
  });

  it('in per-call mode too, whose kernels end with each run', async () => {
    const executor = makeExecutor({ settings: { 'python.kernelMode': 'per-call' } });
    const r = await runEvalTool(
      {
        cells: [
          py('import subprocess\nsubprocess.Popen(["sleep", "300"])'),
          py('import threading\nthreading.Thread(target=threading.Event().wait, name="poller").start()'),
        ],
      },
      { executor, id: 'per-call' },
    );
    expect(r.cells[1]?.notices.at(-1)).toMatch(
      /^Work was still running in the kernel when this call ended \(Python threads: poller; a process: sleep 300 \[pid \d+\]\)/,
    );
  });
});

describe('issue 40: a session keeps its interpreter', () => {
  it('the notebook’s session says so in the next cell when a .venv appears, and keeps its names', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-venv-watch-'));
    const hostEnv = { PATH: process.env.PATH, HOME: dir };
    const executor = makeExecutor({ hostEnv });
    const session = await executor.session({ id: 'notebook', cwd: dir });
    const [first] = await session.run([py('import sys\nkept = 1\nprint(sys.executable)')]);
    execFileSync(first?.text.trim() as string, ['-m', 'venv', '--without-pip', join(dir, '.venv')]);
    // The watch hears of the new folder on its own time: cells run until one carries the notice.
    let notices: string[] = [];
    let text = '';
    while (!notices.some((n) => n.includes('A different Python would now be chosen here'))) {
      const [r] = await session.run([py('print(kept)')]);
      notices = r?.notices ?? [];
      text = r?.text ?? '';
    }
    expect(text).toBe('1\n');
    const [after] = await session.run([py('print(kept)')]);
    expect(after?.notices).toEqual([]);
    await session.release();
  });
});
