/**
 * Sandboxed kernels (issue 19) against unsandboxed ones, in one run: start → ready (alternating,
 * so machine load hits both alike), a warm `1+1` round trip, interrupt latency; and what bwrap
 * itself costs, with the runner as the namespace's pid 2 (what omp-eval does) or `--as-pid-1`.
 */
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { findBwrap, Kernel, type Language, type ResolvedPython, resolvePython } from '../src/eval/index.js';
import type { SandboxSettings } from '../src/eval/sandbox/settings.js';
import { type BenchRow, interruptLatency, median, ms, timeIt } from './lib.js';

const SANDBOX: SandboxSettings = { mode: 'workspace-write', allowNetwork: false, writableRoots: [] };
const OFF: SandboxSettings = { mode: 'off', allowNetwork: false, writableRoots: [] };
const STARTS = 15;

function exec(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

/** Median start → ready of each sandbox, the two alternating. */
async function starts(language: Language, python: ResolvedPython): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []];
  const opts = { language, cwd: process.cwd(), ...(language === 'py' ? { resolved: python } : {}) };
  await (await Kernel.start({ ...opts, sandbox: SANDBOX })).shutdown(); // bwrap's probe, once
  for (let i = 0; i < STARTS; i++) {
    for (const [n, sandbox] of [OFF, SANDBOX].entries()) {
      const t = performance.now();
      const k = await Kernel.start({ ...opts, sandbox });
      times[n]?.push(performance.now() - t);
      await k.shutdown();
    }
  }
  return [median(times[0]), median(times[1])];
}

async function warm(language: Language, python: ResolvedPython, sandbox: SandboxSettings) {
  const k = await Kernel.start({
    language,
    cwd: process.cwd(),
    sandbox,
    ...(language === 'py' ? { resolved: python } : {}),
  });
  for (let i = 0; i < 200; i++) await k.execute('1+1');
  const roundTrip = await timeIt(1000, async () => {
    await k.execute('1+1');
  });
  const loop = language === 'py' ? 'print("go")\nwhile True:\n    pass' : 'console.log("go"); for (;;) {}';
  const interrupt = await interruptLatency(k, loop);
  await k.shutdown();
  return { roundTrip, interrupt };
}

/** bwrap running `true`: the runner as pid 2 under bwrap's init, or as pid 1 itself. */
async function bwrapCost(bwrap: string): Promise<BenchRow> {
  const base = ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-net', '--cap-drop', 'ALL'];
  const fs = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  const asPid2 = await timeIt(20, () => exec(bwrap, [...base, ...fs, '--', 'true']));
  const asPid1 = await timeIt(20, () => exec(bwrap, [...base, '--as-pid-1', ...fs, '--', 'true']));
  const bare = await timeIt(20, () => exec('true', []));
  return {
    what: 'bwrap … true (runner as pid 2 | --as-pid-1)',
    omp: `${ms(asPid2)} | ${ms(asPid1)}`,
    baseline: `${ms(bare)} (true)`,
    ratio: `+${ms(asPid2 - bare)}`,
    target: 'pid 2 (SIGTERM works, zombies reaped)',
  };
}

export async function sandboxBench(python: ResolvedPython): Promise<BenchRow[]> {
  const bwrap = findBwrap();
  if (!bwrap) {
    process.stderr.write('(sandbox benchmark skipped: bwrap is not installed)\n');
    return [];
  }
  const rows: BenchRow[] = [];
  for (const language of ['py', 'js'] as const) {
    const [off, on] = await starts(language, python);
    rows.push({
      what: `${language} kernel start → ready, sandboxed`,
      omp: ms(on),
      baseline: `${ms(off)} (no sandbox)`,
      ratio: `+${ms(on - off)}`,
      target: '≤ +20 ms',
    });
    const plain = await warm(language, python, OFF);
    const boxed = await warm(language, python, SANDBOX);
    rows.push({
      what: `${language} warm 1+1 round trip, sandboxed`,
      omp: ms(boxed.roundTrip),
      baseline: `${ms(plain.roundTrip)} (no sandbox)`,
      ratio: `${(boxed.roundTrip / plain.roundTrip).toFixed(2)}×`,
      target: 'unchanged (≈ 1×)',
    });
    rows.push({
      what: `${language} interrupt → done, sandboxed`,
      omp: ms(boxed.interrupt),
      baseline: `${ms(plain.interrupt)} (no sandbox)`,
      ratio: `${(boxed.interrupt / plain.interrupt).toFixed(2)}×`,
      target: 'unchanged',
    });
  }
  rows.push(await bwrapCost(bwrap));
  return rows;
}

// `node dist/bench/sandbox.js` runs this part alone.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await sandboxBench(await resolvePython({ cwd: process.cwd() }));
  for (const r of rows)
    process.stdout.write(`| ${r.what} | ${r.omp} | ${r.baseline} | ${r.ratio} | ${r.target} |\n`);
}
