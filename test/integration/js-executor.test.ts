import { describe, expect, it } from 'vitest';
import { TIMEOUT_KILLED_NOTICE, TIMEOUT_NOTICE } from '../../src/eval/index.js';
import { runEvalTool } from '../../src/eval/tool.js';
import { makeExecutor } from '../helpers/executor.js';
import { pidAlive, waitFor } from '../helpers/kernel.js';

const js = (code: string, extra: Record<string, unknown> = {}) => ({
  language: 'js' as const,
  code,
  ...extra,
});
const py = (code: string, extra: Record<string, unknown> = {}) => ({
  language: 'py' as const,
  code,
  ...extra,
});

describe('executor: js cells', () => {
  it('runs js cells through the same results: text, streams, display and notices', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    const [r] = await s.run([
      js(
        'console.log("out"); console.error("err"); display({"text/markdown": "**md**"}, {raw: true}); [1, 2]',
      ),
    ]);
    expect(r).toMatchObject({ language: 'js', status: 'ok', exitCode: 0, executionCount: 1 });
    expect(r?.text).toBe('out\nerr\n**md**\n[ 1, 2 ]\n');
  });

  it('keeps a Python and a JavaScript kernel side by side, each with its own state', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    const results = await s.run([py('shared = "py"'), js('const shared = "js"'), py('shared'), js('shared')]);
    expect(results.map((r) => r.text)).toEqual(['', '', "'py'\n", "'js'\n"]);
    expect(ex.kernels.map((k) => k.language).sort()).toEqual(['js', 'py']);
  });

  it('a failing js cell stops the call; earlier state persists', async () => {
    const ex = makeExecutor();
    const r = await runEvalTool(
      { cells: [js('const kept = 1'), py('x = 2'), js('undefinedName + 1'), py('print("never")')] },
      { executor: ex, id: 'mixed' },
    );
    expect(r.cells.map((c) => c.status)).toEqual(['ok', 'ok', 'error', 'skipped']);
    expect(r.cells[2]?.error?.ename).toBe('ReferenceError');
    expect(r.text).toContain('ReferenceError: undefinedName is not defined');
    expect(r.text).toContain('at Cell In[2]:1:1');
    expect(r.text).toContain(
      'Cell 3 failed (exit code 1). Earlier cells succeeded—their state persists. Cell 4 was not run. Fix only cell 3.',
    );
    const next = await runEvalTool({ cells: [js('kept'), py('x')] }, { executor: ex, id: 'mixed' });
    expect(next.text).toBe('[1/2]\n1\n\n[2/2]\n2');
  });

  it('times out a js cell: interrupted, the kernel and its state survive', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    await s.run([js('const before = "kept"')]);
    const [r] = await s.run([js('while (true) {}', { timeout: 1 })]);
    expect(r).toMatchObject({ status: 'cancelled', timedOut: true, kernelKilled: false });
    expect(r?.notices).toEqual([TIMEOUT_NOTICE(1)]);
    const [after] = await s.run([js('before')]);
    expect(after?.text).toBe("'kept'\n");
  });

  it('times out an unresponsive js kernel: killed after the escalation and recreated', async () => {
    const ex = makeExecutor({ interruptEscalationMs: 300 });
    const s = await ex.session();
    await s.run([js('1')]);
    const pid = s.kernelOf('js')?.pid as number;
    const [r] = await s.run([js('await null; while (true) {}', { timeout: 1 })]);
    expect(r).toMatchObject({ status: 'cancelled', timedOut: true, kernelKilled: true });
    expect(r?.notices).toEqual([TIMEOUT_KILLED_NOTICE]);
    await waitFor(() => !pidAlive(pid), 60_000, 'the old kernel to be gone');
    const [after] = await s.run([js('typeof before')]);
    expect(after?.text).toBe("'undefined'\n");
    expect(s.kernelOf('js')?.pid).not.toBe(pid);
  });

  it('reset: true restarts the js kernel only', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    await s.run([js('const a = 1'), py('b = 2')]);
    const results = await s.run([js('typeof a', { reset: true }), py('b')]);
    expect(results.map((r) => r.text)).toEqual(["'undefined'\n", '2\n']);
  });

  it('per-call mode gives every call fresh kernels, shut down afterwards', async () => {
    const ex = makeExecutor({ settings: { 'python.kernelMode': 'per-call' } });
    const first = await runEvalTool({ cells: [js('globalThis.mark = 1; mark')] }, { executor: ex });
    expect(first.text).toBe('1');
    const second = await runEvalTool({ cells: [js('typeof mark')] }, { executor: ex });
    expect(second.text).toBe("'undefined'");
    expect(ex.kernels).toEqual([]);
  });

  it('interrupts a js cell through the run signal', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    const controller = new AbortController();
    let started = false;
    const running = s.run(
      [js('setTimeout(() => console.log("go"), 0); await new Promise(() => {})'), js('"never"')],
      {
        signal: controller.signal,
        onEvent: (_, e) => {
          if (e.kind === 'stdout') started = true;
        },
      },
    );
    await waitFor(() => started, 60_000, 'the cell to start');
    controller.abort();
    const results = await running;
    expect(results.map((r) => r.status)).toEqual(['cancelled', 'skipped']);
    expect(results[0]?.error?.ename).toBe('Interrupted');
  });

  it('runs js cells in a session without Python; py cells fail with the availability error', async () => {
    const ex = makeExecutor({ settings: { 'python.interpreter': '/no/such/python3' } });
    await expect(ex.session()).rejects.toThrow(/cannot be used/);
    const s = await ex.session({ requirePython: false });
    const results = await s.run([js('6 * 7'), py('1')]);
    expect(results.map((r) => r.status)).toEqual(['ok', 'error']);
    expect(results[0]?.text).toBe('42\n');
    expect(results[1]?.error?.ename).toBe('BackendUnavailable');
    expect(results[1]?.text).toContain('The Python backend is not available');
  });

  it('a js kernel that dies on its own is replaced and the cell retried once', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    await s.run([js('globalThis.count = 1')]);
    const [r] = await s.run([js('if (globalThis.count) process.kill(process.pid, "SIGKILL"); "second run"')]);
    expect(r).toMatchObject({ status: 'ok', retried: true });
    expect(r?.text).toContain('The JavaScript kernel died while running this cell (signal SIGKILL)');
    expect(r?.text).toContain("'second run'");
    expect(r?.text).not.toContain('omp-sync');
  });
});
