/**
 * `npm run bench`: kernel start, round trip, print throughput, interrupt latency and host memory,
 * each a median over repeated runs, printed as a table with the ratio to its baseline.
 */
import { spawn } from 'node:child_process';
import { Kernel } from '../src/eval/index.js';
import { resolvePython, which } from '../src/eval/launch/python.js';
import { cliBench } from './cli.js';
import { displayBench } from './display.js';
import { durationBench } from './durations.js';
import { jsBench } from './js.js';
import { type BenchRow, interruptLatency, jupyterBaseline, ms, printTable, timeIt } from './lib.js';
import { resultsBench } from './results.js';
import { sandboxBench } from './sandbox.js';

/** Spawns a process, discards its stdout, resolves on exit. */
function spawnAndDrain(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    // A plain block-buffered python: the host's PYTHONUNBUFFERED would slow the baseline down.
    const { PYTHONUNBUFFERED: _, ...env } = process.env;
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited ${code}`))));
  });
}

const LINES = 200_000;
const LOOP = `for i in range(${LINES}):\n    print('${'x'.repeat(42)}', i)`;

const rows: BenchRow[] = [];

async function main() {
  // First, while nothing else of the benchmark runs: how fast the commands start.
  rows.push(...(await cliBench()));
  const python = await resolvePython({ cwd: process.cwd() });
  process.stderr.write(`interpreter: ${python.executable} (Python ${python.version.join('.')})\n`);
  const jupyter = jupyterBaseline(300, LINES);

  // 1. Kernel start to ready, against the same interpreter running `-c pass`.
  const bare = await timeIt(15, () => spawnAndDrain(python.executable, ['-c', 'pass']));
  const start = await timeIt(15, async () => {
    const k = await Kernel.start({ resolved: python });
    void k.shutdown();
  });
  rows.push({
    what: 'kernel start → ready',
    omp: ms(start),
    baseline: `${ms(bare)} (python -c pass)`,
    ratio: `${(start / bare).toFixed(2)}×`,
    target: '≤ 1.5×',
  });
  const shim = which('python3', process.env.PATH);
  if (shim && shim !== python.executable) {
    const viaShim = await timeIt(5, () => spawnAndDrain(shim, ['-c', 'pass']));
    process.stderr.write(`(python3 on PATH is ${shim}: -c pass takes ${ms(viaShim)} through it)\n`);
  }

  const k = await Kernel.start({ resolved: python });

  // 2. Warm round trip.
  for (let i = 0; i < 200; i++) await k.execute('1+1');
  const roundTrip = await timeIt(2000, async () => {
    await k.execute('1+1');
  });

  // 3. 200k lines end to end, against the same loop in a bare python writing to a pipe.
  const barePrint = await timeIt(5, () => spawnAndDrain(python.executable, ['-c', LOOP]));
  let received = 0;
  const print = await timeIt(5, async () => {
    await k.execute(LOOP, {
      onFrame: (f) => {
        if (f.type === 'stdout') received += f.data.length;
      },
    });
  });
  if (received < LINES * 5 * 40) throw new Error(`print loop lost output: ${received} chars`);

  // 4. Interrupt of a running loop to done.
  const interrupt = await interruptLatency(k, 'print("go")\nwhile True:\n    pass');

  // 5. 1 GB in 1 MB writes: host memory stays bounded.
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  let gigabyte = 0;
  const t1 = performance.now();
  await k.execute(
    'import sys\nchunk = "x" * (2**20 - 1) + "\\n"\nfor _ in range(1024):\n    sys.stdout.write(chunk)',
    {
      onFrame: (f) => {
        if (f.type === 'stdout') gigabyte += f.data.length;
      },
    },
  );
  const gbMs = performance.now() - t1;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  if (gigabyte !== 1024 * 2 ** 20) throw new Error(`1 GB cell delivered ${gigabyte} chars`);
  await k.shutdown();

  const jup = await jupyter;
  rows.push({
    what: 'warm round trip of 1+1',
    omp: ms(roundTrip),
    baseline: jup ? `${ms(jup.roundTripMs)} (Jupyter)` : 'n/a (no jupyter_client)',
    ratio: jup ? `${(jup.roundTripMs / roundTrip).toFixed(1)}× faster` : '-',
    target: '< 1 ms; ≥ 10× faster',
  });
  rows.push({
    what: `${LINES / 1000}k lines printed, end to end`,
    omp: ms(print),
    baseline: `${ms(barePrint)} (bare python to a pipe)`,
    ratio: `${(print / barePrint).toFixed(2)}×`,
    target: '≤ 1.2×',
  });
  if (jup) {
    rows.push({
      what: `${LINES / 1000}k lines printed, end to end`,
      omp: ms(print),
      baseline: `${ms(jup.printLinesMs)} (Jupyter)`,
      ratio: `${(jup.printLinesMs / print).toFixed(1)}× faster`,
      target: '≥ 1× (as fast)',
    });
  }
  rows.push({
    what: 'interrupt of a running loop → done',
    omp: ms(interrupt),
    baseline: '-',
    ratio: '-',
    target: '< 20 ms',
  });
  rows.push({
    what: '1 GB in 1 MB writes: host peak RSS',
    omp: `${Math.round(peak / 2 ** 20)} MiB (+${Math.round((peak - rssBefore) / 2 ** 20)} MiB)`,
    baseline: `${Math.round(rssBefore / 2 ** 20)} MiB before`,
    ratio: `${(gbMs / 1000).toFixed(1)} s, ${Math.round(1024 / (gbMs / 1000))} MiB/s`,
    target: 'bounded',
  });

  rows.push(...(await durationBench(python)));
  rows.push(...(await displayBench()));
  rows.push(...(await jsBench()));
  rows.push(...(await resultsBench()));
  rows.push(...(await sandboxBench(python)));

  printTable(rows);
}

await main();
