/**
 * The executor's queue (src/eval/executor/session.ts): the runs on one session key wait for each
 * other (a promise chain on the key's kernel set), whichever owner of the key made them; a run's
 * cells stop at the first that fails; a per-call run's kernels end with it. Real kernels.
 */
import { describe, expect, it } from 'vitest';
import { makeExecutor } from '../helpers/executor.js';
import { waitFor } from '../helpers/kernel.js';

const py = (code: string) => ({ language: 'py' as const, code });

/** Two sessions of one key (or one session twice), each with a log of appends in its kernel. */
async function owners(id: string, twice: boolean) {
  const ex = makeExecutor();
  const first = await ex.session({ id });
  const second = twice ? await ex.session({ id }) : first;
  await first.run([py('log = []')]);
  const log = async () => (await second.run([py('log')]))[0]?.text;
  return { first, second, log };
}

describe('the runs of one session key', { timeout: 120_000 }, () => {
  it('wait for each other across the key’s owners: a second owner’s run goes after the whole first run', async () => {
    const { first, second, log } = await owners('shared', true);
    expect(second).not.toBe(first);
    // Without the queue, the second owner's cell would reach the kernel between a1 and a2: the
    // first run sends a2 only once a1's result is back.
    const a = first.run([py('log.append("a1")'), py('log.append("a2")')]);
    const b = second.run([py('log.append("b1")')]);
    await Promise.all([a, b]);
    expect(await log()).toBe("['a1', 'a2', 'b1']\n");
  });

  it('hold the key through afterCells: its further cells run before the next run', async () => {
    const { first: s, log } = await owners('after', false);
    const a = s.run([py('log.append("a")')], {
      afterCells: async (_results, runMore) => {
        await runMore([py('log.append("after a")')], {});
      },
    });
    const b = s.run([py('log.append("b")')]);
    await Promise.all([a, b]);
    expect(await log()).toBe("['a', 'after a', 'b']\n");
  });

  it('skip a run’s cells after one that fails, and only that run’s', async () => {
    const ex = makeExecutor();
    const s = await ex.session({ id: 'skip' });
    const done: string[] = [];
    const a = s.run([py('1 / 0'), py('never = 1')], {
      onCellDone: (c) => done.push(`a${c.index}:${c.status}`),
    });
    const b = s.run([py('"b ran"')]);
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra.map((c) => c.status)).toEqual(['error', 'skipped']);
    expect(done).toEqual(['a0:error', 'a1:skipped']);
    expect(rb[0]?.text).toBe("'b ran'\n");
    const [r] = await s.run([py('"never" in globals()')]);
    expect(r?.text).toBe('False\n');
  });

  it('skip the cells of a run whose signal fired before they came, and still let the next run go', async () => {
    const ex = makeExecutor();
    const s = await ex.session({ id: 'abort' });
    await s.run([py('x = 1')]);
    const controller = new AbortController();
    controller.abort();
    const skipped = await s.run([py('x = 2')], { signal: controller.signal });
    expect(skipped.map((c) => c.status)).toEqual(['skipped']);
    const [r] = await s.run([py('x')]);
    expect(r?.text).toBe('1\n');
  });

  it('in per-call mode end their kernels with each run: nothing is kept, nothing left running', async () => {
    const ex = makeExecutor();
    const s = await ex.session({ id: 'per-call', mode: 'per-call' });
    const [first] = await s.run([py('import os\nkept = os.getpid()\nkept')]);
    const pid = Number(first?.text.trim());
    expect(pid).toBeGreaterThan(0);
    expect(s.kernel).toBeUndefined();
    const [second] = await s.run([py('"kept" in globals()')]);
    expect(second?.text).toBe('False\n');
    await waitFor(() => ex.kernels.length === 0, 60_000, 'the per-call kernels to go');
  });

  it('are refused once the session is released', async () => {
    const ex = makeExecutor();
    const s = await ex.session({ id: 'released' });
    await s.release();
    await expect(s.run([py('1')])).rejects.toThrow('this session has been released');
  });
});
