/**
 * What the benchmarks share: timing, medians, the table's rows, the interrupt measurement and
 * their scratch folders.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kernel } from '../src/eval/index.js';

/**
 * A scratch folder under the temp dir, removed when the benchmark's process ends: what the
 * notebook and the tool write there (spill files, artifacts) is hundreds of megabytes a run.
 */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface BenchRow {
  what: string;
  omp: string;
  baseline: string;
  ratio: string;
  target: string;
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

export const ms = (x: number) => `${x < 10 ? x.toFixed(2) : x.toFixed(0)} ms`;

/** The median time of `n` runs of `fn`. */
export async function timeIt(n: number, fn: () => Promise<void>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return median(times);
}

/**
 * The median time from interrupt() to the end of a cell that printed something and then spins
 * (`code`), over `rounds` runs in one kernel.
 */
export async function interruptLatency(k: Kernel, code: string, rounds = 15): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    let ready = false;
    const cell = k.execute(code, {
      onFrame: (f) => {
        if (f.type === 'stdout') ready = true;
      },
    });
    while (!ready) await new Promise((r) => setTimeout(r, 2));
    await new Promise((r) => setTimeout(r, 20));
    const t = performance.now();
    k.interrupt();
    const outcome = await cell;
    times.push(performance.now() - t);
    if (!outcome.cancelled) throw new Error(`interrupt did not cancel the cell: ${code}`);
  }
  return median(times);
}

/** Prints `rows` as a Markdown table, the first two columns headed `what` and `omp`. */
export function printTable(rows: BenchRow[], what = 'benchmark', omp = 'omp-eval'): void {
  const cols: (keyof BenchRow)[] = ['what', 'omp', 'baseline', 'ratio', 'target'];
  const head: BenchRow = { what, omp, baseline: 'baseline', ratio: 'ratio', target: 'target' };
  const width = (c: keyof BenchRow) => Math.max(...[head, ...rows].map((r) => r[c].length));
  const line = (r: BenchRow) => `| ${cols.map((c) => r[c].padEnd(width(c))).join(' | ')} |`;
  const rule = `|${cols.map((c) => '-'.repeat(width(c) + 2)).join('|')}|`;
  process.stdout.write(`${[line(head), rule, ...rows.map(line)].join('\n')}\n`);
}

/**
 * The Jupyter baseline: `1+1` (median of `rounds` round trips) and `lines` printed lines through
 * jupyter_client and ipykernel (bench/jupyter_bench.py, with /usr/bin/python3); undefined, said on
 * stderr, where they are not installed.
 */
export function jupyterBaseline(
  rounds: number,
  lines: number,
): Promise<{ roundTripMs: number; printLinesMs: number } | undefined> {
  const script = fileURLToPath(new URL('../../bench/jupyter_bench.py', import.meta.url));
  return new Promise((resolve) => {
    execFile(
      '/usr/bin/python3',
      [script, String(rounds), String(lines)],
      { timeout: 600_000, env: { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: '1' } },
      (err, stdout) => {
        if (err) {
          process.stderr.write(`(jupyter baseline skipped: ${err.message.split('\n')[0]})\n`);
          resolve(undefined);
          return;
        }
        resolve(JSON.parse(stdout.trim().split('\n').at(-1) as string));
      },
    );
  });
}
