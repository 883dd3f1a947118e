/**
 * The JavaScript kernel: start to ready against `node -e 0`, a warm round trip, 200k printed
 * lines against the same loop in a bare node writing to a pipe, and interrupt latency.
 */
import { spawn } from 'node:child_process';
import { Kernel } from '../src/eval/index.js';
import { type BenchRow, interruptLatency, ms, timeIt } from './lib.js';

const LINES = 200_000;
const LOOP = `for (let i = 0; i < ${LINES}; i++) console.log("line " + i + " of the js benchmark output");`;

function node(code: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

export async function jsBench(): Promise<BenchRow[]> {
  const bare = await timeIt(15, () => node('0'));
  const start = await timeIt(15, async () => {
    const k = await Kernel.start({ language: 'js' });
    void k.shutdown();
  });
  const k = await Kernel.start({ language: 'js' });
  for (let i = 0; i < 200; i++) await k.execute('1+1');
  const roundTrip = await timeIt(2000, async () => {
    await k.execute('1+1');
  });
  const barePrint = await timeIt(5, () => node(LOOP));
  let received = 0;
  const print = await timeIt(5, async () => {
    await k.execute(LOOP, {
      onFrame: (f) => {
        if (f.type === 'stdout') received += f.data.length;
      },
    });
  });
  if (received < LINES * 5 * 35) throw new Error(`js print loop lost output: ${received} chars`);
  const interrupt = await interruptLatency(k, 'console.log("go"); while (true) {}');
  await k.shutdown();
  return [
    {
      what: 'js kernel start → ready',
      omp: ms(start),
      baseline: `${ms(bare)} (node -e 0)`,
      ratio: `${(start / bare).toFixed(2)}×`,
      target: '≤ 1.5× (as py)',
    },
    {
      what: 'js warm round trip of 1+1',
      omp: ms(roundTrip),
      baseline: '-',
      ratio: '-',
      target: '< 1 ms (as py)',
    },
    {
      what: `js ${LINES / 1000}k console.log lines, end to end`,
      omp: ms(print),
      baseline: `${ms(barePrint)} (bare node to a pipe)`,
      ratio: `${(print / barePrint).toFixed(2)}×`,
      target: '≤ 1.2× (issue 17)',
    },
    {
      what: 'js interrupt of while (true) {} → done',
      omp: ms(interrupt),
      baseline: '-',
      ratio: '-',
      target: '< 20 ms (issue 17)',
    },
  ];
}
