import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { deadlineIn } from '../helpers/kernel.js';
import { openNotebook, type Screen } from '../helpers/pty.js';
import { cellStatus, lineStarting } from '../helpers/screen.js';

const open: Screen[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.kill();
});

function launch(opts: Parameters<typeof openNotebook>[1] = {}) {
  const s = openNotebook([], opts);
  open.push(s);
  return s;
}

async function ready(s: Screen) {
  await s.waitFor((t) => t.includes('In [1]:') && t.includes('● idle'), 'the prompt and an idle kernel');
}

/** Resident memory of a process, in MiB (Linux). */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
}

describe('the notebook in a terminal, for long sessions', () => {
  it('takes typing before the kernel is ready, and runs it when it is', async () => {
    const s = launch();
    await s.waitFor((t) => t.includes('In [1]:'), 'the prompt');
    await s.run('1+1');
    const screen = await s.waitFor(
      (t) => cellStatus(t, 1) !== undefined,
      'the cell typed during start-up, run',
    );
    expect(cellStatus(screen, 1)).toMatch(/^✓ \[1\] ok/);
    expect(lineStarting(screen, 'Out[1]:')).toBe('Out[1]: 2');
  });

  it('runs text and Enter that arrive in one read (tmux send-keys, fast typists)', async () => {
    const s = launch();
    await ready(s);
    s.write('4+4\r');
    const one = await s.waitFor((t) => cellStatus(t, 1) !== undefined, 'the cell');
    expect(lineStarting(one, 'Out[1]:')).toBe('Out[1]: 8');
    // Several lines and Enters in one read are keys too, each Enter ending a cell (only a
    // bracketed paste is one cell).
    s.write('a = 1\rb = 2\ra + b\r');
    const three = await s.waitFor((t) => cellStatus(t, 4) !== undefined, 'three cells');
    expect([2, 3, 4].map((n) => cellStatus(three, n))).toEqual([
      expect.stringMatching(/^✓ \[2\] ok/),
      expect.stringMatching(/^✓ \[3\] ok/),
      expect.stringMatching(/^✓ \[4\] ok/),
    ]);
    expect(lineStarting(three, 'Out[4]:')).toBe('Out[4]: 3');
  });

  it('three quick Ctrl-C presses stop the cell and keep the notebook and its state', async () => {
    const s = launch();
    await ready(s);
    await s.run('kept = 7');
    await s.waitFor((t) => t.includes('In [2]:'));
    await s.run('print("looping", flush=True); exec("while True: pass")');
    await s.waitFor((t) => /^looping$/m.test(t) && t.includes('running'), 'the loop');
    // The presses that follow the first one are part of the interrupt (absorbed), not an exit.
    s.write('\x03');
    s.write('\x03');
    s.write('\x03');
    await s.waitFor((t) => t.includes('cancelled') && t.includes('In [3]:'));
    await s.run('kept * 6');
    await s.waitFor((t) => t.includes('Out[3]: 42'), 'the state, kept');
    expect(s.text()).not.toContain('Press Ctrl-C again');
  });

  it('leaves no stale frame behind when resized while a cell streams', async () => {
    const s = launch({ columns: 100, rows: 30 });
    await ready(s);
    await s.run(
      'import time\nfor i in range(10**6):\n    print("tick", i, "-" * 60, flush=True); time.sleep(0.02)',
    );
    // The first Enter adds a line below the code (the block goes on); the second runs it.
    await s.waitFor((t) => /\.\.\.:/.test(t.split('time.sleep(0.02)')[1] ?? ''), 'the next line');
    s.write('\r');
    const lastTick = (t: string) => Math.max(-1, ...[...t.matchAll(/tick (\d+) /g)].map((m) => Number(m[1])));
    await s.waitFor((t) => lastTick(t) >= 20, 'the stream');
    const before = lastTick(s.text());
    s.resize(70, 30);
    await s.waitFor((t) => lastTick(t) >= before + 40, 'the stream after the resize');
    s.write('\x03');
    await s.waitFor(() => s.all().includes('cancelled') && s.text().includes('In [2]:'));
    const all = s.all();
    // One status line, one prompt: the frames before the resize are gone. (A frame that Ink wrote
    // between the terminal's reflow and the notebook's notice of it can leave its first row.)
    expect(all.split('\n').filter((l) => l.startsWith('● ')).length).toBe(1);
    expect(all.split('\n').filter((l) => l.startsWith('In [')).length).toBe(1);
    expect(all.split('\n').filter((l) => l.includes('[*] running')).length).toBeLessThanOrEqual(1);
  });

  it('leaves no stale frame behind when a streamed line of wide characters meets the edge', async () => {
    const s = launch({ columns: 80, rows: 24 });
    await ready(s);
    // 41 CJK characters are 82 columns: the live row is cut at 80, a wide character at the cut.
    await s.run('import time\nfor i in range(3): print(chr(0x884c) * 41, flush=True); time.sleep(0.4)');
    await s.waitFor((t) => t.includes('In [2]:'), 'the cell, done');
    const all = s.all();
    expect(all.split('\n').filter((l) => l.includes('[*] running')).length).toBe(0);
    expect(all.split('\n').filter((l) => l.startsWith('In [')).length).toBe(1);
  });

  it('prints a cell stopped by Ctrl-C once, with no old frame of it drawn again below', async () => {
    const s = launch({ columns: 80, rows: 24 });
    await ready(s);
    await s.run('import time\nfor i in range(100): print("n", i, flush=True); time.sleep(0.3)');
    await s.waitFor((t) => t.includes('n 6') && t.includes('running'), 'seven lines');
    s.write('\x03');
    // The new prompt is drawn, then the finished cell printed above it (in the next turn of the
    // event loop: under load the screen can be read in between).
    await s.waitFor(
      (t) => t.includes('cancelled') && t.includes('In [2]:') && t.includes('● idle'),
      'the cell, printed, and the prompt',
    );
    const all = s.all();
    expect(all.split('\n').filter((l) => l.includes('[*] running')).length).toBe(0);
    expect(all.split('\n').filter((l) => l.includes('cancelled')).length).toBe(1);
    // The cell's header stays on screen, above its output and the prompt.
    expect(s.text()).toMatch(/cancelled[\s\S]*n 0[\s\S]*In \[2\]:/);
  });

  it('keeps a 25 MB line under 300 MB and names the file that has all of it', async () => {
    const s = launch();
    await ready(s);
    await s.run('print("y" * 25_000_000)');
    const screen = await s.waitFor(
      (t) => t.includes('In [2]:') && t.includes('the whole output is in'),
      'the cell',
    );
    expect(screen).toContain('chars omitted]');
    expect(rssMiB(s.pid)).toBeLessThan(300);
    // (The note breaks before the path where the path does not fit the row; the terminal wraps the
    // path itself, so the rows are joined without a space.)
    const file = /the whole output is in ?(\/\S+?\.txt)/.exec(s.all().replace(/\n/g, ''))?.[1] as string;
    expect(readFileSync(file, 'utf8').length).toBe(25_000_001);
  });
});

/** True while `pid` runs (a zombie has ended: it only waits for its parent). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('the terminal goes away', () => {
  it('without a SIGHUP (the notebook in a session of its own): it exits, and its kernel with it', async () => {
    const s = launch({ ownSession: true });
    await ready(s);
    // A kernel the notebook shuts down exits as Python does (atexit runs); one the host guard
    // kills after a crashed host does not.
    const marker = join(mkdtempSync(join(tmpdir(), 'omp-gone-')), 'clean-exit');
    await s.run(`import atexit; atexit.register(lambda: open(${JSON.stringify(marker)}, "w").close())`);
    await s.waitFor((t) => t.includes('In [2]:'), 'the atexit cell');
    await s.run('import os; print("pids", os.getpid(), os.getppid())');
    const screen = await s.waitFor((t) => /pids \d+ \d+/.test(t) && t.includes('In [3]:'), 'the pids');
    const [kernel = 0, host = 0] = (/pids (\d+) (\d+)/.exec(screen) ?? []).slice(1).map(Number);
    expect(readFileSync(`/proc/${host}/cmdline`, 'utf8')).toContain('omp-eval');
    s.closeTerminal();
    for (const until = deadlineIn(60_000); (running(host) || running(kernel)) && Date.now() < until; )
      await new Promise((r) => setTimeout(r, 50));
    expect({ host: running(host), kernel: running(kernel) }).toEqual({ host: false, kernel: false });
    expect(existsSync(marker)).toBe(true); // shut down by the notebook, not killed by the guard
  });
});
