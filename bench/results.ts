/**
 * Issue 13 item 2: the eval tool's result stays bounded whatever the shape of a cell's output —
 * the text an agent reads, the JSON result, and the host's memory while the cell runs (peak RSS,
 * sampled every 20 ms; the issue measured 1.9 GB for 300 JSON outputs of 1 MB and 1.1 GB for 20
 * PNGs of 8 MB before).
 */
import { createExecutor, runEvalTool } from '../src/eval/index.js';
import { type BenchRow, scratchDir } from './lib.js';

const PNG_HEAD =
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAYAAAC56t6BAAAAEElEQVR4nGNgYGD4z4AKAAH+AQHx3/eRAAAAAElFTkSuQmCC';

const SHAPES: { what: string; code: string; before: string }[] = [
  { what: 'one line of 900,000 chars', code: 'print("x" * 900_000)', before: 'text 900,001 chars' },
  {
    what: 'five lines of 200,000',
    code: 'for c in "abcde":\n    print(c * 200_000)',
    before: 'text 200,199 chars',
  },
  {
    what: '200 MB, no newline',
    code: 'import sys\nfor _ in range(200):\n    sys.stdout.write("y" * 1_000_000)',
    before: '-',
  },
  {
    what: '300 JSON outputs of 1 MB',
    code: 'for i in range(300):\n    display({"i": i, "pad": "p" * 1_000_000})',
    before: '1.9 GB host, 302 MB out',
  },
  {
    what: '20 PNGs of 8 MB',
    code: `import base64\nhead = base64.b64decode("${PNG_HEAD}")\nfor i in range(20):\n    display({"image/png": base64.b64encode(head + bytes([i]) * 8_000_000).decode(), "text/plain": "png"}, raw=True)`,
    before: '1.1 GB host',
  },
];

const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;

export async function resultsBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const previousTmp = process.env.TMPDIR;
  process.env.TMPDIR = scratchDir('omp-bench-results-');
  const executor = createExecutor({ settings: { 'artifacts.maxFileMB': 300, 'artifacts.maxTotalMB': 1000 } });
  try {
    await runEvalTool({ cells: [{ language: 'py', code: '1' }] }, { executor }); // a warm kernel
    for (const shape of SHAPES) {
      global.gc?.();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 20);
      const t = performance.now();
      const result = await runEvalTool(
        { cells: [{ language: 'py', code: shape.code, timeout: 600 }] },
        { executor },
      );
      const seconds = (performance.now() - t) / 1000;
      const json = JSON.stringify(result).length;
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      rows.push({
        what: `tool result, ${shape.what}`,
        omp: `text ${result.text.length} chars, result ${(json / 1e6).toFixed(1)} MB, peak RSS ${mib(peak)} (+${mib(peak - before)}), ${seconds.toFixed(1)} s`,
        baseline: shape.before,
        ratio: '-',
        target: 'text ≤ ~50,000; bounded',
      });
    }
  } finally {
    await executor.dispose();
    if (previousTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmp;
  }
  return rows;
}
