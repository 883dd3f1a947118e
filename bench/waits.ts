/**
 * `npm run bench`, first table (issue 45): what a user waits for, measured from outside. Each
 * case is a whole process tree, timed from spawn to exit (for `mcp`: to the answer to the first
 * `eval` call over stdio) by bench/spawn_timer.py, which also counts the CPU of the tree, kernels
 * included. Every round runs the baseline and then each case, so that a change of load hits them
 * alike; a ratio is the median of the rounds' own ratios. Cold: omp-eval's caches empty (a fresh
 * TMPDIR: runner files, bytecode, interpreter probe, spawn recipe), as on the first call after an
 * upgrade; warm: a repeated call. The OS's file cache is warm in both.
 *
 * Runs alone: `node dist/bench/waits.js` after `npm run build`. OMP_BENCH_ROUNDS (warm rounds, 7),
 * OMP_BENCH_COLD_ROUNDS (3), OMP_BENCH_CELLS (warm cells per block, 100), OMP_BENCH_SANDBOX=0
 * (leave the sandboxed MCP case out), OMP_BENCH_BEFORE=<another build's bin/omp-eval.js> (each
 * case also run with it, in the same rounds: a step's gain, measured under the same load),
 * OMP_BENCH_OFF=<names> (instead, each case also run with OMP_EVAL_PERF_OFF=<names>: a trick's gain),
 * OMP_BENCH_CASES=<words> (only the cases whose name has one of them; `none`: the engine rows).
 */
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kernel } from '../src/eval/index.js';
import { resolvePython } from '../src/eval/launch/python.js';
import { envInt, median, scratchDir } from './lib.js';

const BIN = fileURLToPath(new URL('../../bin/omp-eval.js', import.meta.url));
const TIMER = fileURLToPath(new URL('../../bench/spawn_timer.py', import.meta.url));
const ROUNDS = envInt('OMP_BENCH_ROUNDS', 7);
const COLD_ROUNDS = envInt('OMP_BENCH_COLD_ROUNDS', 3);
const CELLS = envInt('OMP_BENCH_CELLS', 100);

interface Request {
  argv: string[];
  input?: string;
  env?: Record<string, string>;
  mode?: 'exit' | 'mcp';
  cwd?: string;
}
interface Answer {
  wallMs: number;
  cpuMs: number;
  firstMs?: number;
  initMs?: number;
  code: number;
  orphansLeft?: number;
  error?: string;
}

/** The timer process (spawn_timer.py): one request at a time. */
class SpawnTimer {
  private readonly child: ChildProcessWithoutNullStreams;
  private pending: ((line: string) => void)[] = [];
  private buffered = '';

  constructor(python: string) {
    this.child = spawn(python, [TIMER], { stdio: 'pipe' });
    this.child.stderr.pipe(process.stderr);
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.buffered += chunk;
      let nl = this.buffered.indexOf('\n');
      while (nl >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        this.pending.shift()?.(line);
        nl = this.buffered.indexOf('\n');
      }
    });
  }

  async time(request: Request): Promise<Answer> {
    const line = await new Promise<string>((resolve) => {
      this.pending.push(resolve);
      this.child.stdin.write(`${JSON.stringify(request)}\n`);
    });
    const answer = JSON.parse(line) as Answer;
    if (answer.error || answer.code !== 0)
      throw new Error(`${request.argv.join(' ')}: exit ${answer.code}: ${answer.error ?? ''}`);
    return answer;
  }

  close(): void {
    this.child.stdin.end();
  }
}

/** One timed sample: the figure the user waits for and the tree's CPU. */
interface Sample {
  ms: number;
  cpuMs: number;
  /** mcp: spawn → the answer to initialize. */
  initMs?: number;
}

interface Case {
  name: string;
  target: number;
  baseline: 'pair' | 'python-mib';
  request: (env: Record<string, string>) => Request;
  /** The figure: spawn to exit, or spawn to the first eval answer. */
  pick?: (a: Answer) => number;
}

interface Series {
  cold: Sample[];
  warm: Sample[];
  coldBase: Sample[];
  warmBase: Sample[];
}

const fmt = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(0));
const ratio = (x: number) => `${x.toFixed(2)}×`;

/** min / median of a series' figure, in ms. */
function minMed(samples: Sample[], key: 'ms' | 'cpuMs' = 'ms'): string {
  const xs = samples.map((s) => s[key]);
  return `${fmt(Math.min(...xs))} / ${fmt(median(xs))} ms`;
}

/** The median of the rounds' own ratios (each case against the baseline of its round). */
function roundRatio(samples: Sample[], base: Sample[], key: 'ms' | 'cpuMs' = 'ms'): number {
  return median(samples.map((s, i) => s[key] / (base[i] as Sample)[key]));
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(', ');

async function main(): Promise<void> {
  const python = await resolvePython({ cwd: process.cwd() });
  const py = python.executable;
  const node = process.execPath;
  const dir = scratchDir('omp-bench-start-');
  const work = join(dir, 'work');
  execFileSync('mkdir', ['-p', work]);
  writeFileSync(join(work, 'print1.py'), 'print(1)\n');
  // 1 MiB to stdout in 1,024 lines.
  writeFileSync(
    join(work, 'mib.py'),
    'import sys\nline = "x" * 1023 + "\\n"\nfor _ in range(1024):\n    sys.stdout.write(line)\n',
  );
  const timer = new SpawnTimer(py);
  const loadBefore = load();
  process.stderr.write(
    `bench start: node ${process.version}, ${py} (Python ${python.version.join('.')}); load ${loadBefore}; ` +
      `${COLD_ROUNDS} cold and ${ROUNDS} warm rounds\n`,
  );

  const tool = JSON.stringify({ cells: [{ language: 'py', code: '1+1' }] });
  const cases: Case[] = [
    {
      name: '`omp-eval run` of `print(1)`',
      target: 1.3,
      baseline: 'pair',
      request: (env) => ({ argv: [node, BIN, 'run', 'print1.py'], env, cwd: work }),
    },
    {
      name: '`omp-eval tool` of `1+1`',
      target: 1.3,
      baseline: 'pair',
      request: (env) => ({ argv: [node, BIN, 'tool'], input: tool, env, cwd: work }),
    },
    {
      name: '`omp-eval mcp --sandbox off`: spawn → first `eval` result',
      target: 1.5,
      baseline: 'pair',
      request: (env) => ({ argv: [node, BIN, 'mcp', '--sandbox', 'off'], mode: 'mcp', env, cwd: work }),
      pick: (a) => a.firstMs as number,
    },
    {
      name: '`omp-eval run` of 1 MiB output',
      target: 2,
      baseline: 'python-mib',
      request: (env) => ({ argv: [node, BIN, 'run', 'mib.py'], env, cwd: work }),
    },
  ];
  const only = process.env.OMP_BENCH_CASES?.split(/[\s,]+/).filter(Boolean);
  if (only) cases.splice(0, cases.length, ...cases.filter((c) => only.some((w) => c.name.includes(w))));
  const wanted = (c: Case) => !only || only.some((w) => c.name.includes(w));
  const sandboxed: Case = {
    name: '`omp-eval mcp` (sandboxed): spawn → first `eval` result',
    target: 1.5,
    baseline: 'pair',
    request: (env) => ({
      argv: [node, BIN, 'mcp', '--sandbox', 'workspace-write'],
      mode: 'mcp',
      env,
      cwd: work,
    }),
    pick: (a) => a.firstMs as number,
  };
  const before = process.env.OMP_BENCH_BEFORE;
  const off = process.env.OMP_BENCH_OFF;
  if (before || off) {
    // (the other build's cases, or the tricks off, each right after this build's in every round)
    for (const c of [...cases]) {
      cases.splice(cases.indexOf(c) + 1, 0, {
        ...c,
        name: `${c.name} (${before ? 'before' : `off: ${off}`})`,
        request: (env) => {
          const r = c.request(before ? env : { ...env, OMP_EVAL_PERF_OFF: off as string });
          return before ? { ...r, argv: r.argv.map((a) => (a === BIN ? before : a)) } : r;
        },
      });
    }
  }
  if (process.env.OMP_BENCH_SANDBOX !== '0' && wanted(sandboxed)) {
    try {
      await timer.time(sandboxed.request({}));
      cases.push(sandboxed);
    } catch (error) {
      process.stderr.write(`(sandboxed mcp left out: ${(error as Error).message.split('\n')[0]})\n`);
    }
  }

  const sample = (a: Answer, pick?: (a: Answer) => number): Sample => ({
    ms: pick ? pick(a) : a.wallMs,
    cpuMs: a.cpuMs,
    ...(a.initMs !== undefined ? { initMs: a.initMs } : {}),
  });
  // `node -e 0` then `python3 -c pass`, one after the other: what any such call must pay.
  const pair = async (): Promise<Sample> => {
    const a = await timer.time({ argv: [node, '-e', '0'], cwd: work });
    const b = await timer.time({ argv: [py, '-c', 'pass'], cwd: work });
    return { ms: a.wallMs + b.wallMs, cpuMs: a.cpuMs + b.cpuMs };
  };
  const pythonMib = async (): Promise<Sample> =>
    sample(await timer.time({ argv: [py, 'mib.py'], cwd: work }));
  const baseOf = (c: Case) => (c.baseline === 'pair' ? pair() : pythonMib());

  const series = new Map<Case, Series>(
    cases.map((c) => [c, { cold: [], warm: [], coldBase: [], warmBase: [] }]),
  );
  let orphans = 0;
  const timeCase = async (c: Case, env: Record<string, string>) => {
    const a = await timer.time(c.request(env));
    orphans += a.orphansLeft ?? 0;
    return sample(a, c.pick);
  };

  // Cold: each call with caches of its own, empty.
  for (let round = 0; round < COLD_ROUNDS; round++) {
    for (const c of cases) {
      const s = series.get(c) as Series;
      s.coldBase.push(await baseOf(c));
      s.cold.push(await timeCase(c, { TMPDIR: mkdtempSync(join(dir, 'cold-')) }));
    }
  }
  // Warm: each case's caches, filled by one call first, the same for each of its calls. (One
  // TMPDIR for all would hold one recipe, the last case's: every call then spawned its kernel
  // without it, and stored its own, as no user repeating a call does.)
  const warmEnv = new Map(cases.map((c) => [c, { TMPDIR: mkdtempSync(join(dir, 'warm-')) }]));
  for (const c of cases) await timeCase(c, warmEnv.get(c) as Record<string, string>);
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of cases) {
      const s = series.get(c) as Series;
      s.warmBase.push(await baseOf(c));
      s.warm.push(await timeCase(c, warmEnv.get(c) as Record<string, string>));
    }
  }
  timer.close();

  const engine = await engineFigures(py);
  const loadAfter = load();

  const lines = [
    '',
    `Start-up and engine, measured from outside (load average ${loadBefore} before, ${loadAfter} after; ` +
      `${COLD_ROUNDS} cold, ${ROUNDS} warm rounds; min / median; ratio: median of each round's own ratio)`,
    '',
    '| figure | baseline: min / median | cold: min / median | warm: min / median | ratio cold · warm | tree CPU warm (ratio) | target |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const c of cases) {
    const s = series.get(c) as Series;
    const warmRatio = roundRatio(s.warm, s.warmBase);
    const baseName = c.baseline === 'pair' ? '`node -e 0` + `python3 -c pass`' : 'bare python to a pipe';
    lines.push(
      `| ${c.name} | ${baseName}: ${minMed(s.warmBase)} | ${minMed(s.cold)} | ${minMed(s.warm)} | ` +
        `${ratio(roundRatio(s.cold, s.coldBase))} · ${ratio(warmRatio)} | ${fmt(median(s.warm.map((x) => x.cpuMs)))} ms ` +
        `(${ratio(roundRatio(s.warm, s.warmBase, 'cpuMs'))}) | ≤ ${c.target}×${warmRatio <= c.target ? '' : ' MISSED'} |`,
    );
  }
  for (const row of engine) lines.push(row);
  lines.push('');
  for (const c of cases) {
    const inits = (series.get(c) as Series).warm.flatMap((x) => (x.initMs === undefined ? [] : [x.initMs]));
    if (inits.length)
      lines.push(
        `${c.name}: spawn → answer to initialize, warm: ${fmt(Math.min(...inits))} / ${fmt(median(inits))} ms`,
      );
  }
  if (orphans) lines.push(`(${orphans} calls left processes running for over 10 s after their exit)`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Milliseconds from spawn to exit of `cmd`, measured here. */
function spawnToExit(cmd: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(cmd, args, { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(performance.now() - t) : reject(new Error(`${cmd}: ${code}`)),
    );
  });
}

/**
 * Rows measured in this process: kernel start → ready against `python3 -c pass`, and a warm `1+1`
 * against an NDJSON echo between node and python over pipes, interleaved in blocks.
 */
async function engineFigures(py: string): Promise<string[]> {
  const python = await resolvePython({ cwd: process.cwd() });
  const bare: number[] = [];
  const start: number[] = [];
  for (let round = 0; round < ROUNDS * 2; round++) {
    bare.push(await spawnToExit(py, ['-c', 'pass']));
    const t = performance.now();
    const k = await Kernel.start({ resolved: python });
    start.push(performance.now() - t);
    await k.shutdown();
  }
  const echo = new Echo(py);
  const k = await Kernel.start({ resolved: python });
  for (let i = 0; i < 100; i++) {
    await echo.roundTrip(i);
    await k.execute('1+1');
  }
  const echoTimes: number[] = [];
  const cellTimes: number[] = [];
  for (let block = 0; block < ROUNDS; block++) {
    for (let i = 0; i < CELLS; i++) {
      const t = performance.now();
      await echo.roundTrip(i);
      echoTimes.push(performance.now() - t);
    }
    for (let i = 0; i < CELLS; i++) {
      const t = performance.now();
      await k.execute('1+1');
      cellTimes.push(performance.now() - t);
    }
  }
  await k.shutdown();
  echo.close();
  const mm = (xs: number[]) => `${fmt(Math.min(...xs))} / ${fmt(median(xs))} ms`;
  const startRatio = median(start) / median(bare);
  const cellRatio = median(cellTimes) / median(echoTimes);
  return [
    `| kernel start → ready (in process) | \`python3 -c pass\`: ${mm(bare)} | | ${mm(start)} | ${ratio(startRatio)} (medians) | | ≤ 1.3×${startRatio <= 1.3 ? '' : ' MISSED'} |`,
    `| warm \`1+1\`, engine (Kernel.execute) | node↔python NDJSON echo: ${mm(echoTimes)} | | ${mm(cellTimes)} | ${ratio(cellRatio)} (medians) | | ≤ 3×${cellRatio <= 3 ? '' : ' MISSED'} |`,
  ];
}

/** A python that answers each JSON line with one: the least a round trip over pipes costs. */
class Echo {
  private readonly child: ChildProcessWithoutNullStreams;
  private waiting?: () => void;
  private buffered = '';

  constructor(py: string) {
    const code = [
      'import json, sys',
      'out = sys.stdout.buffer',
      'for line in iter(sys.stdin.buffer.readline, b""):',
      '    msg = json.loads(line)',
      '    out.write(json.dumps({"id": msg["id"], "value": "2"}).encode() + b"\\n")',
      '    out.flush()',
    ].join('\n');
    this.child = spawn(py, ['-c', code], { stdio: 'pipe' });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.buffered += chunk;
      if (this.buffered.endsWith('\n')) {
        JSON.parse(this.buffered);
        this.buffered = '';
        this.waiting?.();
      }
    });
  }

  roundTrip(id: number): Promise<void> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.child.stdin.write(`${JSON.stringify({ id, code: '1+1' })}\n`);
    });
  }

  close(): void {
    this.child.stdin.end();
  }
}

await main();
