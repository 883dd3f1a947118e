/**
 * The notebook's input against `ipython3` (Debian's) in the same pseudo-terminal harness, one run
 * interleaved (issue 43): a bracketed paste of 100 KB, 1 MB and 5 MB, from the write to the
 * paste's last line on screen; a 50 MB paste's peak memory and how soon Ctrl-C after it leaves an
 * empty prompt; and a keystroke burst (two cells and their Enters in one write) to both results.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pty from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { median, scratchDir } from './lib.js';

const BIN = fileURLToPath(new URL('../../bin/omp-eval.js', import.meta.url));
export const IPYTHON = '/usr/bin/ipython3';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PASTE = (text: string) => `\x1b[200~${text}\x1b[201~`;

/** A program in a pseudo-terminal, its output fed to a headless terminal. */
export function inPty(file: string, args: string[], env: NodeJS.ProcessEnv, columns = 100, rows = 30) {
  const term = new xterm.Terminal({ cols: columns, rows, allowProposedApi: true, convertEol: true });
  const started = performance.now();
  const child = pty.spawn(file, args, {
    name: 'xterm-256color',
    cols: columns,
    rows,
    env: { ...process.env, CI: 'false', FORCE_COLOR: '1', ...env } as Record<string, string>,
  });
  // The terminal's own replies (DA1 to the notebook's image-protocol query), as a real one sends them.
  term.onData((data) => child.write(data));
  const state = { bytes: 0, lastData: performance.now() };
  let pending = Promise.resolve();
  // While held, the output is kept unparsed (the emulator's work off the timed process's loop).
  let held: Promise<void> | undefined;
  let release = () => {};
  const hold = () => {
    held ??= new Promise<void>((resolve) => {
      release = () => {
        held = undefined;
        resolve();
      };
    });
  };
  child.onData((data) => {
    state.bytes += Buffer.byteLength(data);
    state.lastData = performance.now();
    const gate = held;
    pending = pending.then(async () => {
      await gate;
      await new Promise<void>((resolve) => term.write(data, resolve));
    });
  });
  const screen = () => {
    const buffer = term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < term.rows; i++)
      lines.push(buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? '');
    return lines.join('\n');
  };
  const waitFor = async (predicate: (s: string) => boolean, timeoutMs = 300_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      await pending;
      if (predicate(screen())) return performance.now();
      if (Date.now() > until) throw new Error(`bench: timed out; screen:\n${screen()}`);
      await sleep(2);
    }
  };
  /** Waits until nothing was written for `quietMs`; returns the time of the last write. */
  const settle = async (quietMs = 150) => {
    const from = performance.now();
    // Something is written in answer (at most 2 s), then nothing for quietMs.
    while (state.lastData < from && performance.now() - from < 2000) await sleep(5);
    while (performance.now() - state.lastData < quietMs) await sleep(10);
    await pending;
    return state.lastData;
  };
  const run = async (code: string) => {
    child.write(code);
    await sleep(60);
    child.write('\r');
  };
  return { child, term, screen, waitFor, settle, run, state, started, hold, release: () => release() };
}

type Terminal = ReturnType<typeof inPty>;

/** The notebook, its history and temporary files in a scratch folder. */
export function notebook(opts: { ownTmp?: boolean } = {}, columns = 100, rows = 30): Terminal {
  // For the long session, a temporary folder of its own: the artifacts other runs left (the tests
  // fill the folder to its cap) would make each spill file remove old ones first. (Not for the
  // start: the kernel's compiled bytecode is kept there too.)
  const home = scratchDir('omp-bench-');
  return inPty(
    process.execPath,
    [BIN],
    { ...(opts.ownTmp ? { TMPDIR: home } : {}), OMP_EVAL_HISTORY: join(home, 'history.json') },
    columns,
    rows,
  );
}

/** Debian's IPython with a profile folder of its own (no user configuration, no history file). */
function ipython(): Terminal {
  return inPty(IPYTHON, ['--no-banner', '--HistoryManager.hist_file=:memory:'], {
    IPYTHONDIR: scratchDir('omp-bench-ipython-'),
  });
}

interface Contender {
  name: 'omp-eval' | 'ipython3';
  open: () => Terminal;
  /** The prompt is drawn and the kernel can run a cell. */
  ready: (screen: string) => boolean;
}

const CONTENDERS: Contender[] = [
  { name: 'omp-eval', open: () => notebook(), ready: (s) => s.includes('In [1]:') && s.includes('● idle') },
  { name: 'ipython3', open: ipython, ready: (s) => s.includes('In [1]:') },
];

/** A script of short lines up to `bytes`, ending with `end_of_paste = 1` (the line waited for). */
export function pastedScript(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `x_${i} = ${i}  # a line of the pasted script`;
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join('\r')}\rend_of_paste = 1`;
}

const ENDED = (s: string) => /end_of_paste = 1/.test(s);

/** Seconds from writing a paste of `bytes` to its last line on screen, in a fresh process. */
async function pasteSeconds(who: Contender, bytes: number): Promise<number> {
  const t = who.open();
  try {
    await t.waitFor(who.ready, 60_000);
    await t.settle();
    const text = PASTE(pastedScript(bytes));
    const from = performance.now();
    t.child.write(text);
    return ((await t.waitFor(ENDED, 1_800_000)) - from) / 1000;
  } finally {
    t.child.kill();
  }
}

/** Milliseconds from a burst of two cells and their Enters, in one write, to both results. */
async function burstMs(who: Contender): Promise<number> {
  const t = who.open();
  try {
    await t.waitFor(who.ready, 60_000);
    await t.run('a, b = 1, 2');
    await t.waitFor((s) => s.includes('In [2]:'));
    await t.settle();
    const from = performance.now();
    t.child.write('c = 3\ra + b + c\r');
    return (await t.waitFor((s) => s.includes('Out[3]: 6') && s.includes('In [4]:'), 60_000)) - from;
  } finally {
    t.child.kill();
  }
}

const peakMiB = (pid: number) =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/** The notebook's peak memory over a 50 MB paste, and the time from Ctrl-C to an empty prompt. */
async function hugePaste(): Promise<{ seconds: number; peak: number; clearMs: number }> {
  const t = notebook();
  try {
    await t.waitFor(CONTENDERS[0]?.ready as Contender['ready'], 60_000);
    await t.settle();
    const from = performance.now();
    t.child.write(PASTE(pastedScript(50 * 1024 * 1024)));
    const seconds = ((await t.waitFor(ENDED, 600_000)) - from) / 1000;
    const peak = peakMiB(t.child.pid);
    const cleared = performance.now();
    t.child.write('\x03');
    const clearMs = (await t.waitFor((s) => /In \[1\]:\s*$/m.test(s) && !ENDED(s))) - cleared;
    return { seconds, peak, clearMs };
  } finally {
    t.child.kill();
  }
}

const SIZES = [
  { label: '100 KB', bytes: 100 * 1024 },
  { label: '1 MB', bytes: 1024 * 1024 },
  { label: '5 MB', bytes: 5 * 1024 * 1024 },
];

/** The rows of the notebook's input benchmarks: [what, omp-eval, baseline, target]. */
export async function inputBench(rounds = 3): Promise<string[][]> {
  const contenders = existsSync(IPYTHON) ? CONTENDERS : CONTENDERS.slice(0, 1);
  const times = new Map<string, number[]>();
  const add = (key: string, value: number) => times.set(key, [...(times.get(key) ?? []), value]);
  // Interleaved: each round runs every size in both, the notebook first, then IPython.
  for (let round = 0; round < rounds; round++) {
    for (const size of SIZES)
      for (const who of contenders) add(`${who.name} ${size.label}`, await pasteSeconds(who, size.bytes));
    for (const who of contenders) add(`${who.name} burst`, await burstMs(who));
  }
  const stat = (key: string, unit: (x: number) => string) => {
    const xs = times.get(key);
    return xs ? `${unit(median(xs))} (min ${unit(Math.min(...xs))})` : 'ipython3 not installed';
  };
  const s = (x: number) => `${x.toFixed(2)} s`;
  const ms = (x: number) => `${Math.round(x)} ms`;
  const ratio = (key: string) => {
    const omp = times.get(`omp-eval ${key}`);
    const base = times.get(`ipython3 ${key}`);
    return omp && base ? ` (${(median(omp) / median(base)).toFixed(2)}×)` : '';
  };
  const rows = SIZES.map(({ label }) => [
    `bracketed paste of ${label} → its last line on screen (median of ${rounds})`,
    stat(`omp-eval ${label}`, s),
    `ipython3 ${stat(`ipython3 ${label}`, s)}${ratio(label)}`,
    '≤ 2× ipython3',
  ]);
  rows.push([
    `two cells and their Enters in one write → both results (median of ${rounds})`,
    stat('omp-eval burst', ms),
    `ipython3 ${stat('ipython3 burst', ms)}${ratio('burst')}`,
    'report',
  ]);
  const huge = await hugePaste();
  rows.push([
    'bracketed paste of 50 MB: time, peak RSS; Ctrl-C → empty prompt',
    `${huge.seconds.toFixed(2)} s, ${huge.peak.toFixed(0)} MB; ${Math.round(huge.clearMs)} ms`,
    '',
    '< 300 MB',
  ]);
  return rows;
}
