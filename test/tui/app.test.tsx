import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../src/tui/App.js';
import type { AgentCell } from '../../src/tui/backend.js';
import { FakeBackend, type Fixture } from '../helpers/fakeBackend.js';
import { KEYS, mount } from '../helpers/ink.js';
import { waitFor } from '../helpers/kernel.js';
import {
  count,
  FakeClock,
  mounted,
  promptAfter,
  promptOf,
  run,
  runBody,
  screen,
  start,
  statusOf,
} from './mountApp.js';

afterEach(() => {
  for (const h of mounted.splice(0)) h.unmount();
});

describe('notebook screen', () => {
  it('shows a finished cell with counter, status, code and result', async () => {
    const { h } = start({
      '1+1': { events: [{ kind: 'result', text: '2', images: [], bundle: { 'text/plain': '2' } }] },
    });
    await h.waitFor((f) => f.includes('In [1]:'));
    await run(h, '1+1');
    const frame = await h.waitFor((f) => f.includes('Out[1]: 2') && f.includes('In [2]:'));
    await expect(screen(frame)).toMatchFileSnapshot('../../snapshots/cell-ok.txt');
  });

  const statuses: [string, Fixture, string][] = [
    [
      'error',
      {
        events: [
          {
            kind: 'error',
            ename: 'ZeroDivisionError',
            evalue: 'division by zero',
            traceback: [
              'Traceback (most recent call last):',
              '  Cell In[1], line 1, in <module>',
              '    1/0',
              'ZeroDivisionError: division by zero',
            ],
          },
        ],
        result: { status: 'error', exitCode: 1 },
      },
      '✗ [1] error',
    ],
    ['cancelled', { events: [], result: { status: 'cancelled', exitCode: 130 } }, '⊘ [1] cancelled'],
    [
      'timed out',
      {
        events: [
          { kind: 'notice', text: 'eval cell timed out after 1s; kernel interrupted but remains running.' },
        ],
        result: { status: 'cancelled', timedOut: true },
      },
      '⏱ [1] timed out',
    ],
    [
      'kernel killed',
      {
        events: [{ kind: 'notice', text: 'The kernel did not respond to the interrupt and was killed.' }],
        result: { status: 'cancelled', kernelKilled: true },
      },
      '☠ [1] kernel killed',
    ],
  ];
  for (const [name, fixture, header] of statuses) {
    it(`shows the ${name} status`, async () => {
      const { h } = start({ cell: fixture });
      await run(h, 'cell');
      const frame = await h.waitFor((f) => f.includes(header) && f.includes('In [2]:'), header);
      await expect(screen(frame)).toMatchFileSnapshot(`../../snapshots/status-${name.replace(' ', '-')}.txt`);
    });
  }

  it('shows all it knows of a kernel that is ready at the first frame (it starts while Ink loads)', async () => {
    const { h } = start();
    await h.waitFor((f) => f.includes('● idle'), 'the status line');
    const first = h.stdout.writes.find((w) => w.includes('● idle'));
    expect(first).toContain('Python 3.11.7');
  });

  it('shows queued and running cells, and skips the rest after a failure', async () => {
    const { h, backend } = start({
      'a = 1': { events: [], hold: true },
      'raise ValueError': {
        events: [{ kind: 'error', ename: 'ValueError', evalue: '', traceback: ['ValueError'] }],
        result: { status: 'error' },
      },
      'b = 2': { events: [] },
    });
    await h.press(
      `${KEYS.pasteStart}# %% first\na = 1\n# %% second\nraise ValueError\n# %% third\nb = 2\n${KEYS.pasteEnd}`,
    );
    await h.press(KEYS.enter);
    const running = await h.waitFor(
      (f) => f.includes('[*] first running') && f.includes('○ [ ] second queued'),
    );
    await expect(screen(running)).toMatchFileSnapshot('../../snapshots/paste-running.txt');
    backend.finish();
    const done = await h.waitFor((f) => f.includes('· [ ] third skipped') && f.includes('In [3]:'));
    expect(backend.ran).toEqual(['a = 1', 'raise ValueError']);
    await expect(screen(done)).toMatchFileSnapshot('../../snapshots/paste-done.txt');
  });

  it('keeps the empty lines of the code, the output and the traceback on screen', async () => {
    const code = 'def f():\n    a = 1\n\n    return a\n\nf()';
    const { h } = start({
      [code]: {
        events: [
          { kind: 'stdout', text: 'para one\n\npara two\n' },
          { kind: 'error', ename: 'E', evalue: '', traceback: ['first', '', 'second'] },
        ],
        result: { status: 'error' },
      },
    });
    await h.press(`${KEYS.pasteStart}${code}${KEYS.pasteEnd}`);
    await h.press(KEYS.enter);
    // (the prompt may be drawn a frame before the finished cell is printed above it)
    const frame = await h.waitFor((f) => f.includes('✗ [1] error') && f.includes('In [2]:'));
    const done = frame
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n');
    expect(done).toContain('│     a = 1\n│\n│     return a\n│\n│ f()');
    expect(done).toContain('para one\n\npara two');
    expect(done).toContain('first\n\nsecond');
  });

  it('collapses long output to its first 5 and last 15 lines; Ctrl-O prints all of it below', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n');
    const { h } = start({ long: { events: [{ kind: 'stdout', text: `${lines}\n` }] } });
    await run(h, 'long');
    const collapsed = await h.waitFor((f) => f.includes('… 10 more lines (ctrl+o shows them)'));
    expect(collapsed).toContain('line 5\n… 10 more lines');
    expect(collapsed).toContain('shows them)\nline 16');
    expect(collapsed).not.toContain('line 15\n');
    await h.press(KEYS.ctrlO);
    const expanded = await h.waitFor((f) => f.includes('line 15\n'));
    // The transcript is not printed again: the expansion follows it, once.
    expect(count(expanded, '✓ [1] ok')).toBe(2);
    expect(expanded.indexOf('line 15\n')).toBeGreaterThan(expanded.indexOf('more lines'));
  });

  it('selects an earlier cell with Alt-Up for Ctrl-O', async () => {
    const many = Array.from({ length: 25 }, (_, i) => `a${i}`).join('\n');
    const { h } = start({
      first: { events: [{ kind: 'stdout', text: `${many}\n` }] },
      second: { events: [] },
    });
    await run(h, 'first');
    await h.waitFor((f) => f.includes('5 more lines'));
    await run(h, 'second');
    await h.waitFor((f) => f.includes('[2] ok'));
    await h.press(KEYS.altUp);
    await h.waitFor((f) => f.includes('selected cell [1]'));
    await h.press(KEYS.ctrlO);
    const frame = await h.waitFor((f) => f.includes('a7\n'));
    expect(frame.lastIndexOf('✓ [1] ok')).toBeGreaterThan(frame.indexOf('✓ [2] ok'));
  });

  it('a new cell ends the Alt-Up choice: Ctrl-O prints the latest again', async () => {
    const { h } = start({
      first: { events: [{ kind: 'stdout', text: 'from first\n' }] },
      second: { events: [{ kind: 'stdout', text: 'from second\n' }] },
      third: { events: [{ kind: 'stdout', text: 'from third\n' }] },
    });
    await run(h, 'first');
    await run(h, 'second');
    await h.waitFor((f) => f.includes('[2] ok'));
    await h.press(KEYS.altUp);
    await h.waitFor((f) => f.includes('selected cell [1]'));
    await run(h, 'third');
    await h.waitFor((f) => f.includes('[3] ok') && f.includes('In [4]:'));
    await h.press(KEYS.ctrlO);
    const frame = await h.waitFor((f) => f.split('from third').length > 2, 'the latest cell printed again');
    expect(frame.split('from first').length).toBe(2); // once, where it ran
  });

  it('exit, quit, exit() and quit() end the notebook, as they end IPython', async () => {
    for (const word of ['exit', 'quit', 'exit()', 'quit()']) {
      const { h, backend, exited } = start();
      await run(h, word);
      await h.waitFor(() => exited() === 1, `${word} to exit`);
      expect(backend.ran).toEqual([]);
      h.unmount();
    }
  });

  it("in JavaScript, Node's REPL commands .exit and .help are /exit and /help", async () => {
    const backend = new FakeBackend({});
    backend.language = 'js';
    const { h, exited } = start({}, {}, { backend });
    // (a name every object has is a cell like any other)
    await run(h, 'toString');
    await h.waitFor(() => backend.ran.length === 1, 'toString to run as a cell');
    await run(h, '.help');
    await h.waitFor((f) => f.includes('/exit'), 'the help');
    expect(backend.ran).toEqual(['toString']);
    await run(h, '.exit');
    await h.waitFor(() => exited() === 1, '.exit to exit');
    expect(backend.ran).toEqual(['toString']);
  });

  it("in JavaScript, .load and .save read and write files as Node's REPL; other keywords are answered", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-repl-'));
    writeFileSync(join(dir, 'l.js'), 'const a = 1\nconsole.log("loaded", a + 1)\n');
    const backend = new FakeBackend({});
    backend.language = 'js';
    (backend as { cwd: string }).cwd = dir;
    const { h } = start({}, {}, { backend });
    await run(h, '.load l.js');
    await h.waitFor(() => backend.ran.length === 1, 'the file to run as a cell');
    expect(backend.ran).toEqual(['const a = 1\nconsole.log("loaded", a + 1)']);
    await run(h, '.5 + 1'); // (a number, not a command)
    await h.waitFor(() => backend.ran.length === 2, '.5 + 1 to run');
    await h.waitFor((f) => f.includes('In [3]:'));
    await run(h, '.save s.js');
    await h.waitFor((f) => f.includes('Session saved to: s.js'));
    expect(readFileSync(join(dir, 's.js'), 'utf8')).toBe(
      'const a = 1\nconsole.log("loaded", a + 1)\n.5 + 1\n',
    );
    await run(h, '.save s.js');
    await h.waitFor((f) => f.includes('Not saved: s.js exists'));
    for (const [typed, said] of [
      ['.load nope.js', 'Failed to load: nope.js'],
      ['.load', 'The "file" argument must be specified'],
      ['.foo', 'Invalid REPL keyword'],
      ['.editor', 'The prompt is an editor already'],
    ]) {
      await run(h, typed as string);
      await h.waitFor((f) => f.includes(said as string), said);
    }
    // The answers stay in the session, as `node` prints them: the next keys do not wipe them.
    await h.type('x');
    await h.press(KEYS.backspace);
    expect(h.frame()).toContain('Invalid REPL keyword');
    expect(h.frame()).toContain('Failed to load: nope.js');
    // .break on the last line of a cell being typed drops the cell, as Node's REPL drops its input.
    await h.type('function h() {');
    await h.press('\x1b\r'); // Alt-Enter: a new line
    await run(h, '.break');
    await h.waitFor((f) => f.includes('.break: the cell being typed was dropped'));
    await h.waitFor((f) => !f.includes('function h'));
    expect(backend.ran).toHaveLength(2);
    // The answer stays printed after the next cell; Up brings the dropped cell back.
    await run(h, '.5 + 2');
    await h.waitFor(() => backend.ran.length === 3, 'the next cell to run');
    expect(h.frame()).toContain('.break: the cell being typed was dropped');
    await h.press(KEYS.up);
    await h.press(KEYS.up);
    await h.waitFor((f) => f.includes('function h() {'), 'the dropped cell from the history');
  });

  it('clamps a line longer than 4000 characters', async () => {
    const { h } = start({ wide: { events: [{ kind: 'stdout', text: `${'y'.repeat(5000)}\n` }] } });
    await run(h, 'wide');
    const frame = await h.waitFor((f) => f.includes('[1000 chars omitted]'));
    expect(frame).not.toContain('y'.repeat(4001));
  });

  it('shows an image as a placeholder line when images are off', async () => {
    const { h } = start({
      plot: {
        events: [
          {
            kind: 'display',
            images: [{ mime: 'image/png', data: 'AAAA', width: 640, height: 480 }],
            bundle: { 'image/png': 'AAAA' },
          },
        ],
      },
    });
    await run(h, 'plot');
    const frame = await h.waitFor(
      (f) => f.includes('✓ [1] ok') && promptOf(f) === 'In [2]:',
      'the cell done',
    );
    expect(frame).toContain('│ plot\n[image 640×480 png]\n');
  });

  it('Ctrl-C interrupts a running cell, then clears the prompt, then exits on the second press', async () => {
    const clock = new FakeClock();
    const { h, backend, exited } = start({ 'while True: pass': { events: [], hold: true } }, {}, { clock });
    await run(h, 'while True: pass');
    await h.waitFor((f) => f.includes('running'));
    await h.press(KEYS.ctrlC);
    expect(backend.interrupts).toBe(1);
    await h.waitFor((f) => f.includes('⊘ [1] cancelled') && f.includes('KeyboardInterrupt'));
    clock.advance(1500);
    await h.type('half typed');
    await h.press(KEYS.ctrlC);
    await h.waitFor((f) => !f.includes('half typed'));
    expect(exited()).toBe(0);
    await h.press(KEYS.ctrlC);
    await h.waitFor((f) => f.includes('Press Ctrl-C again to exit'));
    await h.press(KEYS.ctrlC);
    expect(exited()).toBe(1);
  });

  it('Ctrl-D on an empty prompt exits, but not while a cell runs', async () => {
    const { h, backend, exited } = start({ 'while True: pass': { events: [], hold: true } });
    await run(h, 'while True: pass');
    await h.waitFor((f) => f.includes('running'));
    await h.press(KEYS.ctrlD);
    await h.waitFor((f) => f.includes('A cell is running: Ctrl-C stops it'));
    expect(exited()).toBe(0);
    backend.finish();
    await h.waitFor((f) => f.includes('✓ [1] ok'));
    await h.press(KEYS.ctrlD);
    expect(exited()).toBe(1);
  });

  it('Ctrl-C on a history entry clears it, and Up starts again from the latest entry', async () => {
    const { h } = start();
    await run(h, 'aaa = 1');
    await run(h, 'bbb = 2');
    await h.waitFor((f) => f.includes('[2] ok') && promptOf(f) === 'In [3]:');
    expect(await promptAfter(h, () => h.press(KEYS.up))).toBe('In [3]: bbb = 2');
    expect(await promptAfter(h, () => h.press(KEYS.ctrlC))).toBe('In [3]:');
    expect(await promptAfter(h, () => h.press(KEYS.up)), 'the latest entry again').toBe('In [3]: bbb = 2');
  });

  it('the armed exit expires with its hint: a later Ctrl-C arms it again instead of exiting', async () => {
    const clock = new FakeClock();
    const { h, exited } = start({}, {}, { clock });
    await h.waitFor((f) => f.includes('In [1]:'));
    await h.press(KEYS.ctrlC);
    await h.waitFor((f) => f.includes('Press Ctrl-C again to exit'));
    // The hint leaves by itself (its timer), and the clock says the window is over.
    await h.waitFor((f) => !f.includes('Press Ctrl-C again to exit'), 'the hint to expire');
    clock.advance(2_500);
    await h.press(KEYS.ctrlC);
    await h.waitFor((f) => f.includes('Press Ctrl-C again to exit'), 'armed again');
    expect(exited()).toBe(0);
  });

  it('answers input() from the prompt', async () => {
    const { h, backend } = start({
      'name = input()': { events: [{ kind: 'input_request', prompt: 'who? ', password: false }], hold: true },
    });
    await run(h, 'name = input()');
    await h.waitFor((f) => f.includes('who?'));
    await h.type('Ada');
    await h.press(KEYS.enter);
    expect(backend.inputs).toEqual(['Ada']);
    backend.finish();
    await h.waitFor((f) => f.includes('who? Ada') && f.includes('✓ [1] ok'));
  });

  it('Up at an input() prompt recalls the answers given at that prompt, as pdb does', async () => {
    const code = 'import pdb; pdb.set_trace()';
    const { h, backend } = start({
      [code]: { events: [{ kind: 'input_request', prompt: '(Pdb) ', password: false }], hold: true },
    });
    await run(h, code);
    await h.waitFor((f) => f.includes('(Pdb)'));
    await h.type('p a + 1');
    await h.press(KEYS.enter);
    backend.emit({ kind: 'input_request', prompt: '(Pdb) ', password: false });
    await h.waitFor((f) => f.split('(Pdb)').length > 2);
    await h.press(KEYS.up);
    await h.waitFor(
      (f) =>
        f
          .trimEnd()
          .split('\n')
          .some((l) => l.endsWith('(Pdb) p a + 1')) && f.split('p a + 1').length > 2,
    );
    await h.press(KEYS.enter);
    expect(backend.inputs).toEqual(['p a + 1', 'p a + 1']);
    backend.finish();
  });

  it('Ctrl-Z is the suspend key while input() or a Ctrl-R search has the keys', async () => {
    // (No job control in the test's terminal: the notebook says so instead of stopping.)
    const noJobControl = 'Ctrl-Z: no job control here to suspend the notebook';
    const { h, backend } = start({
      'name = input()': { events: [{ kind: 'input_request', prompt: 'who? ', password: false }], hold: true },
    });
    await run(h, 'name = input()');
    await h.waitFor((f) => f.includes('who?'));
    await h.type('Ad');
    await h.press('\x1a');
    await h.waitFor((f) => f.includes(noJobControl), 'Ctrl-Z during input()');
    await h.type('a');
    await h.press(KEYS.enter);
    expect(backend.inputs).toEqual(['Ada']);
    backend.finish();
    await h.waitFor((f) => f.includes('✓ [1] ok') && !f.includes(noJobControl));
    await h.press('\x12');
    await h.type('na');
    await h.waitFor((f) => f.includes("(reverse-i-search)`na': name = input()"));
    await h.press('\x1a');
    await h.waitFor((f) => f.includes(noJobControl), 'Ctrl-Z during a search');
  });

  it('a block pasted into input() answers one call a line, as a terminal keeps what was typed ahead', async () => {
    const code = 'a = input("first: "); b = input("second: "); c = input("third: ")';
    const { h, backend } = start({
      [code]: { events: [{ kind: 'input_request', prompt: 'first: ', password: false }], hold: true },
    });
    await run(h, code);
    await h.waitFor((f) => f.includes('first:'));
    await h.press(`${KEYS.pasteStart}line one\nline two\npart${KEYS.pasteEnd}`);
    expect(backend.inputs).toEqual(['line one']);
    backend.emit({ kind: 'input_request', prompt: 'second: ', password: false });
    await h.waitFor((f) => f.includes('second: line two'));
    expect(backend.inputs).toEqual(['line one', 'line two']);
    // The start of a line not ended waits in the third answer.
    backend.emit({ kind: 'input_request', prompt: 'third: ', password: false });
    await h.waitFor((f) => f.includes('third: part'));
    await h.type('s');
    await h.press(KEYS.enter);
    expect(backend.inputs).toEqual(['line one', 'line two', 'parts']);
    backend.finish();
  });

  it('lines pasted into input() that no call takes wait at the prompt once the cell is over', async () => {
    const code = 'a = input("first: "); b = input("second: ")';
    const { h, backend } = start({
      [code]: { events: [{ kind: 'input_request', prompt: 'first: ', password: false }], hold: true },
    });
    await run(h, code);
    await h.waitFor((f) => f.includes('first:'));
    await h.press(`${KEYS.pasteStart}one\ntwo\nthree\npar${KEYS.pasteEnd}`);
    backend.emit({ kind: 'input_request', prompt: 'second: ', password: false });
    await h.waitFor((f) => f.includes('second: two'));
    expect(backend.inputs).toEqual(['one', 'two']);
    backend.finish();
    await h.waitFor((f) => f.includes('✓ [1] ok'));
    await h.waitFor((f) => /In \[2\]: three\n\s*\.\.\.: par/.test(f), 'the lines left over, at the prompt');
  });

  it('keeps what is typed visible when the input() prompt is wider than the window', async () => {
    const prompt = 'Please enter the threshold value for filtering: ';
    const { h, backend } = start(
      { 'ans = input()': { events: [{ kind: 'input_request', prompt, password: false }], hold: true } },
      { columns: 40, rows: 12 },
    );
    await run(h, 'ans = input()');
    await h.waitFor((f) => f.includes('filtering'));
    await h.type('42');
    const frame = await h.waitFor(
      (f) => /…[^\n]*filtering: 42/.test(f),
      'the answer beside the end of the prompt',
    );
    expect(frame).not.toContain('Please enter the threshold value for filtering: 42');
    await h.press(KEYS.enter);
    expect(backend.inputs).toEqual(['42']);
    backend.finish();
  });

  it('Ctrl-C while input() waits leaves the prompt and what was typed above the interrupt, as IPython', async () => {
    const { h, backend } = start({
      'x = input("q: ")': { events: [{ kind: 'input_request', prompt: 'q: ', password: false }], hold: true },
    });
    await run(h, 'x = input("q: ")');
    await h.waitFor((f) => f.includes('q:'));
    await h.type('abc');
    await h.press(KEYS.ctrlC);
    const frame = await h.waitFor((f) => f.includes('[1] cancelled') && f.includes('KeyboardInterrupt'));
    expect(frame).toMatch(/q: abc\n[\s\S]*KeyboardInterrupt/);
    expect(backend.inputs).toEqual([]);
    expect(backend.interrupts).toBe(1);
  });

  it('Ctrl-D on an empty input() answer ends the input (EOFError), as in IPython; mid-answer it deletes', async () => {
    const { h, backend, exited } = start({
      'input()': { events: [{ kind: 'input_request', prompt: 'who? ', password: false }], hold: true },
    });
    await run(h, 'input()');
    await h.waitFor((f) => f.includes('who?'));
    await h.type('ab');
    await h.press(KEYS.left);
    await h.press(KEYS.ctrlD); // deletes the b: the cell still waits
    expect(backend.inputs).toEqual([]);
    await h.press(KEYS.backspace);
    await h.press(KEYS.ctrlD); // the answer is empty now: the end of input
    expect(backend.inputs).toEqual([null]);
    backend.finish();
    await h.waitFor((f) => f.includes('✓ [1] ok'));
    expect(exited()).toBe(0);
  });

  it('runs Enter on a complete cell and adds a line to an open block', async () => {
    const { h, backend } = start();
    await run(h, 'for i in range(2):');
    await h.waitFor((f) => f.includes('   ...:'));
    await run(h, 'print(i)');
    expect(backend.ran).toEqual([]);
    await h.press(KEYS.enter);
    await h.waitFor(() => backend.ran.length === 1);
    expect(backend.ran).toEqual(['for i in range(2):\n    print(i)']);
  });

  it('a %%js cell typed line by line goes on until an empty line, as %%bash in IPython', async () => {
    const { h, backend } = start();
    await run(h, '%%js');
    await run(h, 'const a = [1, 2, 3].map((x) => x * 2)');
    await run(h, 'console.log("hi"); a');
    await h.waitFor((f) => f.includes('...: console.log("hi"); a'));
    expect(backend.ran).toEqual([]);
    await h.waitFor((f) => /^\s*\.\.\.:\s*$/m.test(f), 'the empty line');
    await h.press(KEYS.enter);
    await h.waitFor(() => backend.ran.length === 1);
    expect(backend.ran).toEqual(['%%js\nconst a = [1, 2, 3].map((x) => x * 2)\nconsole.log("hi"); a']);
  });

  it('Ctrl-R past the oldest match keeps that match and says the search failed, as readline', async () => {
    const { h } = start();
    await run(h, 'aa = 1');
    await run(h, 'bb = 2');
    await h.waitFor((f) => f.includes('[2] ok') && promptOf(f) === 'In [3]:');
    await h.press('\x12');
    await h.waitFor((f) => promptOf(f).startsWith('(reverse-i-search)'), 'the search');
    expect(await promptAfter(h, () => h.type('aa'))).toBe("(reverse-i-search)`aa': aa = 1");
    expect(await promptAfter(h, () => h.press('\x12'))).toBe("(failed reverse-i-search)`aa': aa = 1");
    expect(await promptAfter(h, () => h.type('x'))).toBe("(failed reverse-i-search)`aax': aa = 1");
    expect(await promptAfter(h, () => h.press(KEYS.enter)), 'the match, taken').toBe('In [3]: aa = 1');
  });

  it('keeps the gutter on every row of a printed code line that wraps', async () => {
    const { h } = start();
    const code = `value = "${'y'.repeat(150)}"`;
    await run(h, code);
    const frame = await h.waitFor((f) => f.includes('[1] ok') && f.includes('In [2]:'));
    const lines = frame.split('\n');
    const header = lines.findIndex((l) => l.includes('[1] ok'));
    const output = lines.findIndex((l, i) => i > header && l.startsWith('ran '));
    const codeRows = lines.slice(header + 1, output);
    expect(codeRows.length).toBeGreaterThan(1);
    for (const row of codeRows) expect(row).toMatch(/^│ /);
    expect(codeRows.map((r) => r.slice(2)).join('')).toBe(code);
  });

  it('a } typed on an indented empty line of a %%js cell goes back a level', async () => {
    const { h } = start();
    await run(h, '%%js');
    await run(h, 'if (x) {');
    await h.waitFor((f) => /\{\n\s+\.\.\.:$/.test(promptOf(f)), 'the next line');
    // (The frame has no trailing spaces: the indentation shows once something follows it.)
    const head = 'In [1]: %%js\n   ...: if (x) {\n   ...:';
    expect(await promptAfter(h, () => h.type('x')), 'the next line, indented').toBe(`${head}   x`);
    expect(await promptAfter(h, () => h.press(KEYS.backspace))).toBe(head);
    expect(await promptAfter(h, () => h.type('}')), 'the brace, back a level').toBe(`${head} }`);
  });

  it('walks the history with Up and Down', async () => {
    const { h } = start();
    await run(h, 'first = 1');
    await run(h, 'second = 2');
    await h.waitFor((f) => f.includes('[2] ok') && promptOf(f) === 'In [3]:');
    expect(await promptAfter(h, () => h.press(KEYS.up))).toBe('In [3]: second = 2');
    expect(await promptAfter(h, () => h.press(KEYS.up))).toBe('In [3]: first = 1');
    expect(await promptAfter(h, () => h.press(KEYS.down))).toBe('In [3]: second = 2');
    expect(await promptAfter(h, () => h.press(KEYS.down))).toBe('In [3]:');
  });

  it('Up with text typed walks the entries that start with it, as IPython; Down brings the text back', async () => {
    const { h } = start();
    await run(h, 'alpha = 1');
    await run(h, 'beta = 2');
    await run(h, 'alpine = 3');
    await run(h, 'gamma = 4');
    await h.waitFor((f) => f.includes('[4] ok') && promptOf(f) === 'In [5]:');
    expect(await promptAfter(h, () => h.type('al')), 'the typed prefix').toBe('In [5]: al');
    const up = () => promptAfter(h, () => h.press(KEYS.up));
    const down = () => promptAfter(h, () => h.press(KEYS.down));
    expect(await up(), 'the newest entry that starts with al').toBe('In [5]: alpine = 3');
    expect(await up(), 'the next older one, past beta').toBe('In [5]: alpha = 1');
    await h.press(KEYS.up); // (no older match: it stays)
    expect(await down(), 'back to the newer match').toBe('In [5]: alpine = 3');
    expect(await down(), 'the typed text again').toBe('In [5]: al');
  });

  it('shows /help, generated from the commands and the key bindings, and answers an unknown command', async () => {
    const { h } = start();
    await run(h, '/help');
    const help = await h.waitFor((f) => f.includes('Keys:'));
    expect(help).toMatch(/\/restart\s+restart the kernels/);
    expect(help).toMatch(/\/save FILE\s+save the session/);
    expect(help).toMatch(/Ctrl-W\s+delete back to the previous space/);
    expect(help).toMatch(/Ctrl-O\s+print the whole output/);
    await run(h, '/nope');
    await h.waitFor((f) => f.includes('Unknown command /nope. Type /help for the list.'));
  });

  it('/save! at the prompt is a command: it replaces the file that /save left alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-tui-save-'));
    const file = join(dir, 'kept.py');
    writeFileSync(file, 'precious\n');
    const { h } = start();
    await run(h, 'x = 1');
    await h.waitFor((f) => f.includes('[1] ok'));
    await run(h, `/save ${file}`);
    await h.waitFor((f) => f.includes('exists and was left as it is'));
    expect(readFileSync(file, 'utf8')).toBe('precious\n');
    await run(h, `/save! ${file}`);
    await h.waitFor((f) => f.includes('Saved the session as a script'));
    expect(readFileSync(file, 'utf8')).toContain('x = 1');
  });

  it('/save after /restart writes execution counts that keep increasing, as the screen shows them', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'omp-tui-save-')), 'after-restart.ipynb');
    const { h } = start();
    await run(h, 'a = 1');
    await h.waitFor((f) => f.includes('[1] ok'));
    await run(h, 'b = 2');
    await h.waitFor((f) => f.includes('[2] ok'));
    await run(h, '/restart');
    await h.waitFor((f) => f.includes('Kernel restarted'));
    await run(h, 'c = 3');
    await h.waitFor((f) => f.includes('[3] ok'));
    await run(h, `/save ${file}`);
    await h.waitFor((f) => f.includes('Saved the session as a notebook'));
    const nb = JSON.parse(readFileSync(file, 'utf8'));
    const counts = nb.cells
      .filter((c: { cell_type: string }) => c.cell_type === 'code')
      .map((c: { execution_count: number }) => c.execution_count);
    expect(counts).toEqual([1, 2, 3]);
  });

  it('lays the live region out again on resize, keeping it shorter than the terminal', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `row ${i}`).join('\n');
    const { h, backend } = start(
      { stream: { events: [{ kind: 'stdout', text: `${lines}\n` }], hold: true } },
      { rows: 30 },
    );
    await run(h, 'stream');
    await h.waitFor((f) => f.includes('row 99'));
    h.stdout.resize(60, 12);
    await h.waitFor(
      () => /row 99\nIn \[1\]:/.test(h.screen()) && h.screen().split('\n').length < 12,
      'the frame at 12 rows',
    );
    // The frame as it was before the resize is erased, not left below or above the new one.
    expect(count(h.screen(), 'row 99')).toBe(1);
    expect(count(h.frame(), 'row 99')).toBe(1);
    await expect(screen(h.screen())).toMatchFileSnapshot('../../snapshots/resized-live.txt');
    backend.finish();
  });
});

describe('native image protocols', () => {
  it('writes an iTerm2 inline image after the printed cell, outside the frame', async () => {
    const backend = new FakeBackend({
      plot: {
        events: [
          {
            kind: 'display',
            images: [{ mime: 'image/png', data: 'iVBORw0KGgo=', width: 4, height: 4 }],
            bundle: { 'image/png': 'iVBORw0KGgo=' },
          },
        ],
      },
    });
    const h = mount(<App backend={backend} imageMode="iterm" color={true} onExit={() => {}} />);
    mounted.push(h);
    await h.type('plot');
    await h.press(KEYS.enter);
    await h.waitFor((f) => f.includes('[image 4×4 png]'));
    const native = h.stdout.writes.find((w) => w.includes('\x1b]1337;File=inline=1'));
    expect(native).toContain(':iVBORw0KGgo=\x07');
  });
});

describe('rich text', () => {
  it('renders markdown output (a table) for the terminal', async () => {
    const { h } = start({
      frame: {
        events: [
          {
            kind: 'result',
            images: [],
            text: 'df',
            markdown: '| a | b |\n|---|---|\n| 1 | 2 |\n',
            bundle: { 'text/markdown': '| a | b |\n|---|---|\n| 1 | 2 |\n', 'text/plain': 'df' },
          },
        ],
      },
    });
    await run(h, 'frame');
    const frame = await h.waitFor((f) => f.includes('[1] ok'));
    expect(frame).toMatch(/│\s*a\s*│\s*b\s*│/);
    expect(frame).toMatch(/│\s*1\s*│\s*2\s*│/);
  });
});

describe('completion', () => {
  it('Tab while a cell runs says why there are no completions', async () => {
    const { h, backend } = start({ 'while True: pass': { events: [], hold: true } });
    await run(h, 'while True: pass');
    await h.waitFor((f) => f.includes('running'));
    await h.type('pr');
    await h.press(KEYS.tab);
    // (the status line says something instead of its hints)
    const busy = await h.waitFor((f) => !statusOf(f).includes('/help'), 'a message');
    expect(statusOf(busy)).toMatch(/ │ \[0\] {2}no completions while a cell runs$/);
    backend.finish();
    await h.waitFor((f) => f.includes('✓ [1] ok') && promptOf(f) === 'In [2]: pr');
    expect(await promptAfter(h, () => h.press(KEYS.tab)), 'the menu').toBe('In [2]: pr\n  print\n  prod');
  });

  it('Tab opens a menu under the prompt; Tab and Shift-Tab cycle it, Enter keeps the choice', async () => {
    const { h } = start();
    await h.type('x = valu');
    await h.press(KEYS.tab);
    const menu = await h.waitFor((f) => f.includes('  value_one'));
    // What both choices begin with is typed at once, as IPython does.
    expect(menu).toMatch(/In \[1\]: x = value_\s*\n {2}value_one\s*\n {2}value_two\s*\n● idle/);
    await h.press(KEYS.tab);
    await h.waitFor((f) => f.includes('In [1]: x = value_one'));
    await h.press(KEYS.tab);
    await h.waitFor((f) => f.includes('In [1]: x = value_two'));
    await h.press(KEYS.shiftTab);
    await h.waitFor((f) => f.includes('In [1]: x = value_one'));
    await h.press(KEYS.enter);
    await h.waitFor((f) => !f.includes('  value_two'));
    await h.type('+1');
    await h.waitFor((f) => f.includes('In [1]: x = value_one+1'));
  });

  it('Esc closes the menu and puts back the text as it was when the menu opened', async () => {
    const { h } = start();
    const tab = () => promptAfter(h, () => h.press(KEYS.tab));
    const esc = () => promptAfter(h, () => h.press(KEYS.escape));
    await h.type('valu');
    await h.waitFor((f) => promptOf(f) === 'In [1]: valu');
    expect(await tab()).toBe('In [1]: value_\n  value_one\n  value_two');
    expect(await tab()).toBe('In [1]: value_one\n  value_one\n  value_two');
    expect(await esc()).toBe('In [1]: value_');
    // Without a common start, what was typed comes back.
    expect(await promptAfter(h, () => h.press('\x15'))).toBe('In [1]:'); // Ctrl-U
    await h.type('pr');
    await h.waitFor((f) => promptOf(f) === 'In [1]: pr');
    expect(await tab()).toBe('In [1]: pr\n  print\n  prod');
    expect(await tab()).toBe('In [1]: print\n  print\n  prod');
    expect(await esc()).toBe('In [1]: pr');
  });

  it('Tab after whitespace indents', async () => {
    const { h } = start();
    await h.press('\t');
    expect(await promptAfter(h, () => h.type('y'))).toBe('In [1]:     y');
  });
});

describe('fixes from trying it out', () => {
  it('a burst of Backspaces deletes characters instead of inserting DEL', async () => {
    const { h, backend } = start();
    await h.type('x=123');
    await h.press('\x7f\x7f');
    await h.press(KEYS.enter);
    await h.waitFor(() => backend.ran.length === 1);
    expect(backend.ran).toEqual(['x=1']);
  });

  it('Ctrl-Y yanks what the last kills removed: Ctrl-W twice gives both back, Ctrl-K the line end', async () => {
    const { h, backend } = start();
    await h.type('print(alpha beta)');
    await h.press(KEYS.left);
    // Ctrl-W deletes back to a space, as IPython's: "beta", then "print(alpha ", one kill
    await h.press('\x17\x17');
    await h.waitFor((f) => /In \[1\]: \)$/m.test(f));
    await h.press(KEYS.right);
    await h.press('\x19'); // Ctrl-Y
    await h.waitFor((f) => f.includes('In [1]: )print(alpha beta'));
    await h.press('\x01'); // Ctrl-A
    await h.press('\x0b'); // Ctrl-K: a new kill replaces the old one
    await h.type('x = ');
    await h.press('\x19\x19');
    await h.waitFor((f) => f.includes('In [1]: x = )print(alpha beta)print(alpha beta'));
    expect(backend.ran).toEqual([]);
  });

  it('Ctrl-K at the end of a line and Ctrl-U at its start join the lines, as IPython', async () => {
    const { h, backend } = start();
    await h.type('a = [1,');
    await h.press('\x1b\r'); // Alt-Enter
    await h.type('2]');
    await h.press('\x01'); // Ctrl-A: the start of "2]"
    await h.press('\x15'); // Ctrl-U at the start: the line break goes
    await h.waitFor((f) => f.includes('In [1]: a = [1,2]'));
    await h.press(KEYS.enter);
    await h.waitFor(() => backend.ran.length === 1);
    expect(backend.ran).toEqual(['a = [1,2]']);
  });

  it('Ctrl-Y gives back the word Ctrl-W took even where its neighbours repeat it; a password is never kept', async () => {
    const { h, backend } = start({
      'getpass()': { events: [{ kind: 'input_request', prompt: 'pw: ', password: true }], hold: true },
    });
    await h.type('a foo fun');
    for (let i = 0; i < 3; i++) await h.press(KEYS.left);
    await h.press('\x17'); // Ctrl-W: "foo "
    await h.press('\x05'); // Ctrl-E
    await h.press('\x19');
    await h.waitFor((f) => f.includes('In [1]: a funfoo'));
    await h.press('\x15'); // Ctrl-U
    await run(h, 'getpass()');
    await h.waitFor((f) => f.includes('pw:'));
    await h.type('secret');
    await h.press('\x15'); // Ctrl-U in a password answer: not kept
    await h.type('ok');
    await h.press(KEYS.enter);
    await h.waitFor(() => backend.inputs.length === 1);
    backend.finish();
    await h.waitFor((f) => f.includes('In [2]:'));
    await h.press('\x19');
    await h.type('!');
    await h.press(KEYS.enter);
    await h.waitFor(() => backend.ran.length === 2);
    expect(backend.ran[1]).toBe('a funfoo !');
  });

  it("shows a long input() prompt whole while it is answered (%reset's, at 80 columns)", async () => {
    const prompt = 'Once deleted, variables cannot be recovered. Proceed (y/[n])? ';
    const { h } = start(
      { '%reset': { events: [{ kind: 'input_request', prompt, password: false }], hold: true } },
      { columns: 80 },
    );
    await run(h, '%reset');
    // (The answer is typed once the cell asks: typed before, it would go to the prompt.)
    await h.waitFor((f) => f.includes('Proceed (y/[n])?'), 'the question');
    await h.type('y');
    const frame = await h.waitFor((f) => /\? y$/m.test(f), 'the answer');
    // (before: "… deleted, variables cannot be recovered. Proceed (y/[n])? y", its start cut off)
    expect(frame.split('\n').find((line) => line.endsWith('? y'))).toBe(`${prompt}y`);
  });

  it('Ctrl-Y works in an input() answer too', async () => {
    const { h, backend } = start({
      'input()': { events: [{ kind: 'input_request', prompt: 'who? ', password: false }], hold: true },
    });
    await run(h, 'input()');
    await h.waitFor((f) => f.includes('who?'));
    await h.type('ab cd');
    await h.press('\x15'); // Ctrl-U
    await h.type('x ');
    await h.press('\x19');
    await h.press(KEYS.enter);
    await h.waitFor(() => backend.inputs.length === 1);
    expect(backend.inputs).toEqual(['x ab cd']);
  });

  it('shows output of background threads between cells as a block of its own', async () => {
    const { h, backend } = start();
    await h.waitFor((f) => f.includes('In [1]:'));
    backend.background('late line from a thread\n');
    const frame = await h.waitFor((f) => f.includes('late line from a thread'));
    expect(frame).not.toContain('[ ] ok');
    // Lines printed a while apart run on together, without a blank line between them.
    backend.background('a later one\n');
    await h.waitFor((f) => f.includes('late line from a thread\na later one\n'));
    // stdout and stderr of threads in one block, in order.
    backend.background('out\n');
    backend.background('Exception in thread\n', 'stderr');
    await h.waitFor((f) => f.includes('out\nException in thread\n'));
  });

  it('puts Out[n]: on its own line above a result of several rows', async () => {
    const { h } = start({
      table: {
        events: [
          {
            kind: 'result',
            images: [],
            text: 'row one\nrow two',
            bundle: { 'text/plain': 'row one\nrow two' },
          },
        ],
      },
    });
    await run(h, 'table');
    const frame = await h.waitFor((f) => f.includes('row two'));
    expect(frame).toContain('Out[1]:\nrow one\nrow two');
  });

  it('follows %cd on the status line', async () => {
    const { h } = start({ cd: { events: [{ kind: 'status', event: { op: 'cd', path: '/srv/data' } }] } });
    await run(h, 'cd');
    const frame = await h.waitFor(
      (f) => f.includes('✓ [1] ok') && promptOf(f) === 'In [2]:',
      'the cell done',
    );
    expect(statusOf(frame).split(' │ ')[2]).toBe('/srv/data');
  });

  it("shows a cell's status events as the tool's text says them, but not what a magic printed itself", async () => {
    const { h } = start({
      st: {
        events: [
          { kind: 'status', event: { op: 'log', message: 'loading data' } },
          { kind: 'status', event: { op: 'read', path: 'f.txt', lines: 2, total: 9 } },
          { kind: 'status', event: { op: 'timeit', best: 0.5 } },
          { kind: 'stdout', text: 'done\n' },
        ],
      },
    });
    await run(h, 'st');
    const frame = await h.waitFor((f) => f.includes('done'));
    expect(frame).toContain('[log] loading data');
    expect(frame).toContain('[read f.txt: 2 of 9 lines]');
    expect(frame).not.toContain('timeit');
    expect(frame).not.toContain('message=');
  });

  it('drops a completion that arrives after the text changed', async () => {
    const { h, backend } = start();
    let answer!: (c: { matches: string[]; start: number; end: number }) => void;
    backend.complete = () => new Promise((resolve) => (answer = resolve));
    await h.type('s.al');
    await h.press('\t');
    await h.press('\x15'); // Ctrl-U
    await h.type('print(1)');
    answer({ matches: ['s.alpha_value'], start: 0, end: 4 });
    await h.waitFor((f) => f.includes('In [1]: print(1)'));
    expect(h.frame()).not.toContain('pha_value');
  });

  it('runs a decorator line only with its function, and dedents after return', async () => {
    const { h, backend } = start();
    await run(h, '@staticmethod');
    expect(backend.ran).toEqual([]);
    await h.waitFor((f) => f.includes('...:'));
    await run(h, 'def f():');
    await run(h, 'return 1');
    await h.waitFor((f) => /\.\.\.:\s*$/m.test(f.split('\n').slice(-3).join('\n')));
    await h.press(KEYS.enter);
    await h.waitFor(() => backend.ran.length === 1);
    expect(backend.ran[0]).toBe('@staticmethod\ndef f():\n    return 1');
  });
});

describe('coloured tracebacks', () => {
  it('colours frame headers, markers and the exception line', async () => {
    const chalk = (await import('chalk')).default;
    const level = chalk.level;
    chalk.level = 3;
    try {
      const backend = new FakeBackend({
        boom: {
          events: [
            {
              kind: 'error',
              ename: 'ZeroDivisionError',
              evalue: 'division by zero',
              traceback: [
                'Traceback (most recent call last):',
                '  Cell In[1], line 1, in <module>',
                '    1/0',
                '     ~^~',
                'ZeroDivisionError: division by zero',
              ],
            },
          ],
          result: { status: 'error' },
        },
      });
      const h = mount(<App backend={backend} imageMode="off" color={true} onExit={() => {}} />);
      mounted.push(h);
      await h.type('boom');
      await h.press(KEYS.enter);
      await h.waitFor((f) => f.includes('ZeroDivisionError: division by zero'));
      const raw = h.stdout.writes.join('');
      expect(raw).toMatch(/\x1b\[36mCell In\[1\]/); // cyan
      expect(raw).toMatch(/\x1b\[32m, line 1\x1b\[39m/); // green
      expect(raw).toMatch(/\x1b\[1m\x1b\[31mZeroDivisionError: division by zero/); // bold red
      expect(raw).toMatch(/\x1b\[31m {5}~\^~/); // markers in red
    } finally {
      chalk.level = level;
    }
  });
});

describe('notebook: JavaScript results', () => {
  const fixture: Record<string, Fixture> = {
    '%%js\n[1]': {
      events: [
        {
          kind: 'result',
          text: '[ 1 ]',
          ansi: '[ \u001b[33m1\u001b[39m ]',
          images: [],
          bundle: { 'text/plain': '[ 1 ]', 'application/x-omp-ansi': '[ \u001b[33m1\u001b[39m ]' },
        },
      ],
    },
  };

  it('shows the coloured util.inspect form in colour, the plain one without', async () => {
    for (const color of [true, false]) {
      const backend = new FakeBackend(fixture);
      const h = mount(<App backend={backend} imageMode="off" color={color} onExit={() => {}} />);
      mounted.push(h);
      await h.type('%%js');
      await h.press(KEYS.enter);
      await runBody(h, '[1]');
      await h.waitFor((f) => f.includes('Out[1]: [ 1 ]'));
      const raw = h.stdout.writes.join('');
      if (color) expect(raw).toContain('[ \u001b[33m1\u001b[39m ]');
      else expect(raw).not.toContain('\u001b[33m1');
      h.unmount();
    }
  });
});

describe("an agent's burst of calls", () => {
  /** A followed session whose agent made `n` calls before the notebook subscribed. */
  class BurstBackend extends FakeBackend {
    constructor(private readonly n: number) {
      super();
    }
    onAgentCells(listener: (cells: AgentCell[]) => void) {
      for (let call = 1; call <= this.n; call++)
        listener([{ code: `${call}+1`, language: 'py', party: { by: 'agent', call, cell: 0, cells: 1 } }]);
      return () => {};
    }
  }

  it('runs each cell as the one before ends, without waiting for a frame to render', async () => {
    const backend = new BurstBackend(5);
    const h = mount(
      // (no frame ends during the test: after the first render, nothing renders again)
      <App backend={backend} imageMode="off" color={false} onExit={() => {}} frameMs={3_600_000} />,
    );
    mounted.push(h);
    await waitFor(() => backend.ran.length === 5, 60_000, 'the five cells run');
    expect(backend.ran).toEqual(['1+1', '2+1', '3+1', '4+1', '5+1']);
  });
});
