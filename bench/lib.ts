/**
 * What the benchmarks share: timing, medians, the table's rows, the interrupt measurement and
 * their scratch folders.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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

/** A positive integer from the environment (OMP_BENCH_ROUNDS and the like), else `fallback`. */
export const envInt = (name: string, fallback: number) => {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

/** utime + stime of a process, in seconds (Linux). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A process's RSS in MiB (Linux); 0 once it is gone. */
export function rssMiB(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** The RSS in MiB of `pid` and all its descendants (its kernel, the host guard), from /proc. */
export function treeRssMiB(pid: number): number {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // (ended while read)
    }
  }
  let total = 0;
  for (const queue = [pid]; queue.length; ) {
    const next = queue.pop() as number;
    total += rssMiB(next);
    queue.push(...(children.get(next) ?? []));
  }
  return total;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The RSS once the notebook has been idle, as `top` shows it between cells: the notebook's
 * collection runs 1 s after the last cell, and the pages it frees leave the RSS over the next
 * second or so. Read 1.2 s after the screen settled, once it stopped falling for 1 s (at most 6 s
 * more). `read` is rssMiB, or treeRssMiB for the process and its children.
 */
export async function idleRss(pid: number, read = rssMiB): Promise<number> {
  await sleep(1200);
  const until = performance.now() + 6000;
  let last = read(pid);
  let since = performance.now();
  while (performance.now() < until && performance.now() - since < 1000) {
    await sleep(100);
    const now = read(pid);
    if (now < last - 0.5) since = performance.now();
    last = now;
  }
  return last;
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
