/**
 * The notebook in tmux (Debian's, which .ci/run installs), as many people run it: tmux is a
 * terminal with habits of its own that a terminal emulator in the tests (xterm.js) does not have.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cellStatus, lineStarting } from '../helpers/screen.js';
import { openTmux } from '../helpers/tmux.js';

/** A person's pause between keys (typing, not waiting for a condition). */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The prompt's rows: from its last `In [n]:` row down to the status line (the row with ` │ `). */
function promptRows(screen: string): string[] {
  const rows = screen.split('\n').map((row) => row.trimEnd());
  const from = rows.map((row) => row.startsWith('In [')).lastIndexOf(true);
  const to = rows.findIndex((row, i) => i > from && row.includes(' │ '));
  return rows.slice(from, to < 0 ? undefined : to);
}

let open: ReturnType<typeof openTmux> | undefined;
afterEach(() => {
  open?.close();
  open = undefined;
});

describe('the notebook in tmux', () => {
  it('leaves no copy of the running cell in the scroll-back when resized while it runs', async () => {
    // (Wide enough that no row of the frame, the status line with the interpreter's path and the
    // working directory among them, fills the terminal: narrowed, tmux would wrap such a row and
    // push the frame's first row up into its scroll-back, the limit the README names.)
    const t = openTmux(220, 30);
    open = t;
    await t.waitFor((s) => s.includes('In [1]:') && s.includes('idle'), 'the prompt');
    // (One line, shorter than a row: a prompt wider than the terminal has troubles of its own.)
    t.keys('-l', `import os, time; exec('while not os.path.exists("go"): time.sleep(0.02)')`);
    await t.waitFor((s) => s.includes('sleep(0.02)'), 'the code');
    t.keys('Enter');
    const clock = (s: string) => /\[\*\] running · (.*)$/m.exec(s)?.[1];
    // (A few frames in, as a person resizes. A frame that Ink writes between the terminal's
    // reflow and the notebook's notice of it can leave a row behind: a race no notebook wins.)
    await t.waitFor((s) => /^(?:[1-9]\d\d ms|[\d.]+ s)$/.test(clock(s) ?? ''), 'the running cell');
    // (The live frame begins at the top of tmux's screen: there, erasing the screen below it was
    // a clear to tmux, which moved the screen into the scroll-back.)
    for (const [columns, rows] of [
      [210, 30],
      [230, 26],
    ] as const) {
      const before = clock(t.screen());
      t.resize(columns, rows);
      await t.waitFor((s) => clock(s) !== undefined && clock(s) !== before, 'a frame after the resize');
    }
    writeFileSync(t.flag, '');
    // (Read once the prompt is drawn whole: a capture can fall between a frame's erase and redraw.)
    await t.waitFor((s) => s.includes('In [2]:') && s.includes('● idle'), 'the cell, done');
    let transcript = '';
    await t.waitFor(() => {
      transcript = t.all();
      return /^In \[2\]:/m.test(transcript) && transcript.includes('✓ [1] ok');
    }, 'the transcript');
    const all = transcript.split('\n');
    expect(all.filter((line) => line.includes('[*] running'))).toEqual([]);
    expect(all.filter((line) => line.startsWith('In ['))).toHaveLength(1);
    expect(all.filter((line) => line.includes('✓ [1] ok'))).toHaveLength(1);
  });

  it('prints a long output line as one line, which the terminal wraps and reflows', async () => {
    const t = openTmux(100, 30);
    open = t;
    await t.waitFor((s) => s.includes('In [1]:') && s.includes('idle'), 'the prompt');
    t.keys('-l', 'print("https://example.com/" + "a" * 230 + " " + "b" * 30)');
    await t.waitFor((s) => s.includes('* 30)'), 'the code');
    t.keys('Enter');
    await t.waitFor((s) => s.includes('In [2]:') && s.includes('● idle'), 'the cell, done');
    const line = `https://example.com/${'a'.repeat(230)} ${'b'.repeat(30)}`;
    // One line of the terminal's, copied whole (Ink's wrapping made it three, at spaces and at 100).
    expect(t.joined().split('\n')).toContain(line);
    expect(t.all().split('\n')).toContain(line.slice(0, 100));
    // Widened, the terminal reflows it: two rows where there were three.
    t.resize(200, 30);
    await t.waitFor((s) => s.includes(line.slice(0, 200)), 'the line, reflowed');
    expect(t.joined().split('\n')).toContain(line);
  });

  it('takes keys sent 20–50 ms apart, in one send-keys, or before it starts as cells of their own', async () => {
    const t = openTmux(100, 30);
    open = t;
    // Before the notebook has drawn anything (or even started).
    t.keys('a = 1; b = 2', 'Enter');
    await t.waitFor((s) => s.includes('In [2]:') && s.includes('● idle'), 'the cell typed at start');
    for (const [keys, pause] of [
      [['-l', 'c = 3'], 20],
      [['Enter'], 50],
      [['-l', 'a + b + c'], 30],
      [['Enter'], 0],
    ] as const) {
      t.keys(...keys);
      await sleep(pause);
    }
    await t.waitFor((s) => s.includes('Out[3]: 6') && s.includes('In [4]:'), 'two cells');
    t.keys('d = 4', 'Enter', 'a + b + c + d', 'Enter');
    await t.waitFor((s) => s.includes('Out[5]: 10') && s.includes('In [6]:'), 'two more, in one write');
    expect(t.all()).not.toMatch(/\.\.\.: a \+ b/);
  });

  it('takes in a 5 MB paste; Ctrl-C right after it leaves an empty prompt', async () => {
    const t = openTmux(100, 30);
    open = t;
    const file = join(dirname(t.flag), 'paste.py');
    const lines: string[] = [];
    for (let i = 0, size = 0; size < 4 * 1024 * 1024; i++) {
      lines.push(`x_${i} = ${i}  # a line of the pasted script`);
      size += (lines.at(-1) as string).length + 1;
    }
    // And a literal of 1 MB on one line (a data dump): typed into the editor chunk by chunk, it
    // alone took minutes.
    lines.push(`data = "${'d'.repeat(1024 * 1024)}"`);
    writeFileSync(file, `${lines.join('\n')}\nend_of_paste = 1`);
    await t.waitFor((s) => s.includes('In [1]:') && s.includes('idle'), 'the prompt');
    t.paste(file);
    await t.waitFor((s) => s.includes('...: end_of_paste = 1'), 'the paste in the prompt');
    // Pasted again and stopped at once: tmux sends Ctrl-C after the paste (or, from another
    // client, inside it); either way none of it stays.
    t.keys('C-c');
    const cleared = await t.waitFor((s) => !s.includes('end_of_paste'), 'the paste gone');
    expect(promptRows(cleared), 'an empty prompt').toEqual(['In [1]:']);
    t.paste(file);
    t.keys('C-c');
    const again = await t.waitFor((s) => !s.includes('x_') && !s.includes('pasting'), 'the paste gone again');
    expect(promptRows(again), 'an empty prompt again').toEqual(['In [1]:']);
    t.keys('-l', '6 * 7');
    await t.waitFor((s) => s.includes('6 * 7'), 'the code');
    t.keys('Enter');
    const answer = await t.waitFor((s) => cellStatus(s, 1) !== undefined, 'the cell');
    expect(lineStarting(answer, 'Out[1]:'), 'the notebook, answering').toBe('Out[1]: 42');
  });
});
