import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Frame } from '../../src/eval/protocol/index.js';
import { run, startKernel } from '../helpers/kernel.js';

const statuses = (frames: Frame[]) =>
  frames.flatMap((f) =>
    f.type === 'display' && f.bundle['application/x-omp-status']
      ? [f.bundle['application/x-omp-status']]
      : [],
  );

describe('prelude helpers', () => {
  it('env() lists, reads and sets like %env', async () => {
    const k = await startKernel();
    const { result } = await run(
      k,
      'env("OMP_P", "1")\n(env("OMP_P"), type(env()).__name__, env("OMP_NOPE"))',
    );
    expect(result?.['text/plain']).toBe("('1', 'dict', None)");
  });

  it('read, write, append, tree and diff work on files and emit status events', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-prelude-'));
    writeFileSync(join(dir, 'a.txt'), 'one\ntwo\nthree\n');
    const k = await startKernel({ cwd: dir });
    const { result, frames } = await run(
      k,
      [
        'write("b.txt", "one\\nTWO\\nthree\\n")',
        'append("b.txt", "four\\n")',
        'import os; os.mkdir("sub"); write("sub/c.txt", "")',
        'print(tree(".", 2))',
        'print(diff("a.txt", "b.txt"), end="")',
        'read("b.txt", 1, 2)',
      ].join('\n'),
    );
    expect(result?.['text/plain']).toBe("'TWO\\nthree\\n'");
    expect(readFileSync(join(dir, 'b.txt'), 'utf8')).toBe('one\nTWO\nthree\nfour\n');
    const out = frames
      .filter((f) => f.type === 'stdout')
      .map((f) => (f.type === 'stdout' ? f.data : ''))
      .join('');
    expect(out).toContain('├── a.txt\n├── b.txt\n└── sub/\n    └── c.txt');
    expect(out).toContain('-two\n+TWO\n');
    expect(statuses(frames).map((s) => (s as { op: string }).op)).toEqual([
      'write',
      'append',
      'write',
      'tree',
      'diff',
      'read',
    ]);
  });

  it('log() and phase() are status lines, not text output', async () => {
    const k = await startKernel();
    const { frames, stdout } = await run(k, 'phase("load")\nlog("42 rows")');
    expect(stdout).toBe('');
    expect(statuses(frames)).toEqual([
      { op: 'phase', title: 'load' },
      { op: 'log', message: '42 rows' },
    ]);
  });

  it('parallel() keeps input order, re-raises the first failure, and workers print into the cell', async () => {
    const k = await startKernel();
    const { result, stdout } = await run(
      k,
      'import time\ndef job(i):\n    time.sleep(0.05 * (5 - i))\n    print("job", i)\n    return i * i\nparallel([lambda i=i: job(i) for i in range(5)], concurrency=3)',
    );
    expect(result?.['text/plain']).toBe('[0, 1, 4, 9, 16]');
    expect(stdout.split('\n').filter(Boolean).sort()).toEqual(['job 0', 'job 1', 'job 2', 'job 3', 'job 4']);
    const failing = await run(
      k,
      'def bad():\n    raise ValueError("worker failed")\nparallel([lambda: 1, bad])',
    );
    expect(failing.outcome.error).toMatchObject({ ename: 'ValueError', evalue: 'worker failed' });
    const piped = await run(k, 'pipeline([1, 2, 3], lambda x: x + 1, lambda x: x * 10)');
    expect(piped.result?.['text/plain']).toBe('[20, 30, 40]');
  });

  it('the helpers are hidden from %who, and come back after %reset', async () => {
    const k = await startKernel();
    expect((await run(k, '%who')).stdout).toBe('Interactive namespace is empty.\n');
    await run(k, 'log = "mine"\n%reset -f');
    const { frames } = await run(k, 'log("back")');
    expect(statuses(frames)).toEqual([{ op: 'log', message: 'back' }]);
  });
});
