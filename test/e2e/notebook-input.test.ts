/**
 * How the notebook takes its input in a real pseudo-terminal (issue 43): keys typed ahead, during
 * start-up, between cells or in one burst, are cells of their own, each Enter ending one; a
 * bracketed paste is one cell, taken in in time proportional to its size and within the notebook's
 * memory, and Ctrl-C while it comes drops it.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { openNotebook, type Screen } from '../helpers/pty.js';
import { cellStatus, lineStarting } from '../helpers/screen.js';

const open: Screen[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.kill();
});

function launch() {
  const s = openNotebook();
  open.push(s);
  return s;
}

async function ready(s: Screen) {
  await s.waitFor((t) => t.includes('In [1]:') && t.includes('● idle'), 'the prompt and an idle kernel');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PASTE = (text: string) => `\x1b[200~${text}\x1b[201~`;

/** The peak resident memory of a process, in MiB (Linux). */
const peakMiB = (pid: number) =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/** Short lines of code up to `bytes`, then `end_of_paste = 1`. */
function script(bytes: number, long = 0): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `x_${i} = ${i}  # a line of the pasted script`;
    lines.push(line);
    size += line.length + 1;
  }
  // A literal of `long` characters on one line (a data dump pasted as code).
  if (long) lines.push(`data = "${'d'.repeat(long)}"`);
  return `${lines.join('\r')}\rend_of_paste = 1`;
}

describe('keys typed ahead', () => {
  it('an Enter typed before the first prompt is drawn runs the cell', async () => {
    const s = launch();
    // (Before the notebook has even set raw mode: the terminal's line discipline turns the Enter
    // into an LF and echoes the keys.)
    s.write('1+1\r');
    const first = await s.waitFor((t) => cellStatus(t, 1) !== undefined, 'the cell typed before the prompt');
    expect(cellStatus(first, 1)).toMatch(/^✓ \[1\] ok/);
    expect(lineStarting(first, 'Out[1]:')).toBe('Out[1]: 2');
    s.write('a = 20\ra + 22\r');
    const more = await s.waitFor((t) => cellStatus(t, 3) !== undefined, 'two more cells typed in one write');
    expect(lineStarting(more, 'Out[3]:')).toBe('Out[3]: 42');
  });

  it('keys sent 20–50 ms apart after an Enter are the next cell', async () => {
    const s = launch();
    await ready(s);
    await s.run('a = 1; b = 2');
    await s.waitFor((t) => t.includes('In [2]:'));
    for (const [keys, pause] of [
      ['c = 3', 20],
      ['\r', 50],
      ['a + b + c', 30],
      ['\r', 40],
    ] as const) {
      s.write(keys);
      await sleep(pause);
    }
    await s.waitFor((t) => t.includes('Out[3]: 6') && t.includes('In [4]:'), 'two cells');
    expect(s.all()).not.toMatch(/\.\.\.: a \+ b \+ c/);
  });

  it('two cells and their Enters in one write are two cells, also while a cell runs', async () => {
    const s = launch();
    await ready(s);
    await s.run('import time; time.sleep(1); a, b = 1, 2');
    await s.waitFor((t) => t.includes('running'), 'the running cell');
    s.write('c = 3\ra + b + c\r');
    await s.waitFor((t) => t.includes('Out[3]: 6') && t.includes('In [4]:'), 'the two cells typed ahead');
    expect(s.all()).not.toMatch(/\.\.\.: a \+ b \+ c/);
  });
});

describe('a bracketed paste', () => {
  it('of 5 MB, a 1 MB literal on one of its lines, is taken in whole', async () => {
    const s = launch();
    await ready(s);
    const text = script(4 * 1024 * 1024, 1024 * 1024);
    s.write(PASTE(text));
    // (Each chunk typed into the editor drew the cell again: the 1 MB line alone took minutes.)
    await s.waitFor((t) => t.includes('...: end_of_paste = 1'), 'the paste in the prompt', 60_000);
    // Every line, none merged or lost (the component tests run a paste as one cell).
    const lines = text.split('\r').length;
    expect(s.text()).toMatch(new RegExp(`… ${lines} lines \\(\\d+ above, 0 below\\)`));
  });

  it('of 50 MB stays within the notebook’s memory bound, and Ctrl-C after it clears it', async () => {
    const s = launch();
    await ready(s);
    s.write(PASTE(script(50 * 1024 * 1024)));
    await s.waitFor((t) => t.includes('...: end_of_paste = 1'), 'the paste in the prompt', 120_000);
    expect(peakMiB(s.pid)).toBeLessThan(300);
    s.write('\x03');
    await s.waitFor((t) => /In \[1\]:\s*$/m.test(t) && !t.includes('end_of_paste'), 'an empty prompt');
    await s.run('1+1');
    await s.waitFor((t) => t.includes('Out[1]: 2'), 'the notebook, answering');
  });

  it('is dropped by Ctrl-C pressed while it comes', async () => {
    const s = launch();
    await ready(s);
    const half = script(2 * 1024 * 1024);
    s.write(`\x1b[200~${half}\r`);
    s.write('\x03');
    s.write(`${half}\x1b[201~`);
    await s.waitFor((t) => t.includes('paste cancelled'), 'the paste, cancelled');
    expect(s.text()).not.toContain('x_1 = 1');
    await s.run('1+1');
    await s.waitFor((t) => t.includes('Out[1]: 2'), 'the notebook, answering');
  });
});
