import { rmSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runEvalTool } from '../../src/eval/tool.js';
import { makeExecutor } from '../helpers/executor.js';
import { groupAlive } from '../helpers/kernel.js';

const py = (code: string) => ({ language: 'py' as const, code });

describe('load', () => {
  it('runs one tool call with 200 cells', async () => {
    const ex = makeExecutor();
    const cells = Array.from({ length: 200 }, (_, i) =>
      py(`total = ${i === 0 ? 0 : 'total'} + ${i}\nprint(${i})`),
    );
    const result = await runEvalTool({ cells: [...cells, py('total')] }, { executor: ex, id: 'many' });
    expect(result.isError).toBe(false);
    expect(result.cells).toHaveLength(201);
    expect(result.cells.at(-1)?.text).toBe(`${(199 * 200) / 2}\n`);
  });

  it('queues 20 concurrent calls on one session and completes them in order', async () => {
    const ex = makeExecutor();
    await runEvalTool({ cells: [py('seen = []')] }, { executor: ex, id: 'busy' });
    const calls = Array.from({ length: 20 }, (_, i) =>
      runEvalTool({ cells: [py(`seen.append(${i})`), py('len(seen)')] }, { executor: ex, id: 'busy' }),
    );
    const results = await Promise.all(calls);
    expect(results.map((r) => r.cells[1]?.text)).toEqual(Array.from({ length: 20 }, (_, i) => `${i + 1}\n`));
    const order = await runEvalTool({ cells: [py('seen')] }, { executor: ex, id: 'busy' });
    expect(order.text).toBe(`[${Array.from({ length: 20 }, (_, i) => i).join(', ')}]`);
  });

  it('starts 30 sessions, disposes them, and leaves no process and little memory behind', async () => {
    global.gc?.();
    const before = process.memoryUsage().rss;
    const ex = makeExecutor();
    const sessions = await Promise.all(Array.from({ length: 30 }, (_, i) => ex.session({ id: `s${i}` })));
    await Promise.all(sessions.map((s, i) => s.run([py(`x = ${i}`)])));
    const pids = ex.kernels.map((k) => k.pid as number);
    expect(new Set(pids).size).toBe(30);
    await ex.dispose();
    for (const pid of pids) expect(groupAlive(pid)).toBe(false);
    global.gc?.();
    expect(process.memoryUsage().rss - before).toBeLessThan(150 * 1024 * 1024);
  }, 300_000);

  it('carries 1 GB printed in 1 MB writes with bounded host memory, all of it in the artifact', async () => {
    // (the artifact caps raised above the gigabyte: the transfer is what is tested here)
    const ex = makeExecutor({ settings: { 'artifacts.maxFileMB': 1100, 'artifacts.maxTotalMB': 1100 } });
    const session = await ex.session({ id: 'gigabyte' });
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 25);
    try {
      const [r] = await session.run(
        [
          py(
            'import sys\nchunk = "z" * (2**20 - 1) + "\\n"\nfor _ in range(1024):\n    sys.stdout.write(chunk)',
          ),
        ],
        { defaultTimeout: 600 },
      );
      expect(r?.status).toBe('ok');
      expect(r?.truncation?.totalChars).toBe(2 ** 30);
      const artifact = r?.truncation?.artifactPath as string;
      expect(statSync(artifact).size).toBe(2 ** 30);
      rmSync(artifact);
    } finally {
      clearInterval(sampler);
    }
    expect(peak).toBeLessThan(400 * 1024 * 1024);
  }, 300_000);
});
