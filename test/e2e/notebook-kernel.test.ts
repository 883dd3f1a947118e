/**
 * The notebook in a real terminal with its real kernels: Enter follows the kernel's completeness
 * answer, dictionary keys complete inside strings, tracebacks name the notebook's own count, and
 * %load fills the next prompt.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openNotebook, type Screen } from '../helpers/pty.js';
import { cellStatus, lineStarting } from '../helpers/screen.js';

const open: Screen[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.kill();
});

async function start(args: string[] = []) {
  const s = openNotebook(args);
  open.push(s);
  await s.waitFor((t) => t.includes('In [1]:') && t.includes('● idle'), 'the prompt and an idle kernel');
  return s;
}

describe("the notebook's own environment", () => {
  it("is not its kernels': loading React in production mode leaves NODE_ENV as it was", async () => {
    // (NODE_ENV reaches a kernel only when passed: the allowlist has no NODE_ENV)
    const cell = 'import os; print("NODE_ENV=%r" % os.environ.get("NODE_ENV"))';
    const unset = openNotebook(['--pass-env', 'NODE_ENV'], { env: { NODE_ENV: undefined } });
    open.push(unset);
    await unset.waitFor(
      (t) => t.includes('In [1]:') && t.includes('● idle'),
      'the prompt and an idle kernel',
    );
    await unset.run(cell);
    const unsetCell = await unset.waitFor((t) => cellStatus(t, 1) !== undefined, 'the cell');
    expect(lineStarting(unsetCell, 'NODE_ENV='), 'NODE_ENV unset in the kernel').toBe('NODE_ENV=None');
    const set = openNotebook(['--lang', 'js', '--pass-env', 'NODE_ENV'], {
      env: { NODE_ENV: 'development' },
    });
    open.push(set);
    await set.waitFor((t) => t.includes('In [1]:') && t.includes('● idle'), 'the prompt and an idle kernel');
    await set.run('"NODE_ENV=" + process.env.NODE_ENV');
    const setCell = await set.waitFor((t) => cellStatus(t, 1) !== undefined, 'the cell');
    expect(lineStarting(setCell, 'Out[1]:'), "the user's NODE_ENV in the js kernel").toBe(
      "Out[1]: 'NODE_ENV=development'",
    );
  });
});

describe('the notebook asks its kernel', () => {
  it('Enter: the kernel says whether the cell is whole and how to indent the next line', async () => {
    const s = await start();
    // The local rules would wait for `)(` to be closed; IPython's rules run it.
    await s.run(')(');
    const error = await s.waitFor((t) => cellStatus(t, 1) !== undefined, 'the cell run');
    expect(cellStatus(error, 1)).toMatch(/^✗ \[1\] error/);
    expect(lineStarting(error, 'SyntaxError')).toMatch(/^SyntaxError: /);
    await s.run('for i in range(2):');
    // (the prompt `   ...: `, four spaces, the cursor)
    const next = await s.waitFor((t) => /\.\.\.: {5} ?$/m.test(t), 'a line indented by four');
    expect(next.slice(next.lastIndexOf('In [2]:')), 'the prompt').toMatch(
      /^In \[2\]: for i in range\(2\):\n {3}\.\.\.: {5} ?\n/,
    );
    await s.run('print("row", i)');
    const body = await s.waitFor(
      (t) => /\.\.\.: {5} ?$/m.test(t.split('print("row", i)')[1] ?? ''),
      'the block going on',
    );
    expect(body.slice(body.lastIndexOf('In [2]:')), 'the prompt').toMatch(
      /^In \[2\]: for i in range\(2\):\n {3}\.\.\.: {5}print\("row", i\)\n {3}\.\.\.: {5} ?\n/,
    );
    s.write('\r');
    const loop = await s.waitFor((t) => cellStatus(t, 2) !== undefined, 'the loop run');
    expect(loop).toMatch(/^row 0\nrow 1$/m);
  });

  it('Tab inside d["al offers the keys in the menu', async () => {
    const s = await start();
    await s.run('d = {"alpha": 1, "alpine": 2, "beta": 3}');
    await s.waitFor((t) => t.includes('In [2]:'));
    s.write('d["al');
    await s.waitFor((t) => t.includes('In [2]: d["al'));
    s.write('\t');
    const menu = await s.waitFor((t) => t.includes('alpha"]') && t.includes('alpine"]'), 'the key menu');
    expect(menu).not.toContain('beta"]');
    s.write('\t');
    await s.waitFor((t) => t.includes('In [2]: d["alpha"]'), 'the first key');
    s.write('\r'); // keeps the choice
    await s.waitFor((t) => !t.includes('alpine"]'));
    s.write('\r');
    await s.waitFor((t) => t.includes('Out[2]: 1'), 'the value');
  });

  it('Tab whose answer is slow (jedi loading) says the kernel is still working, and completes when it answers', async () => {
    // (The answer waits for a file, not a clock: the test makes it when the notebook said so.)
    const flag = join(mkdtempSync(join(tmpdir(), 'omp-complete-')), 'go');
    const s = await start();
    // (One line: its __dir__ sleeps until the file exists, then names one attribute.)
    const wait = `[time.sleep(0.01) for _ in iter(lambda: os.path.exists(${JSON.stringify(flag)}), True)]`;
    await s.run(
      `import os, time; slow = type("Slow", (), {"__dir__": lambda self: (${wait}, ["unique_attribute_name"])[1]})()`,
    );
    await s.waitFor((t) => t.includes('In [2]:'), 'the class defined');
    s.write('slow.uniq');
    await s.waitFor((t) => t.includes('In [2]: slow.uniq'), 'the typed name');
    s.write('\t');
    await s.waitFor((t) => t.includes('completing…'), 'the status line saying the kernel is working on it');
    writeFileSync(flag, '');
    const done = await s.waitFor((t) => !t.includes('completing…'), 'the answer');
    expect(lineStarting(done, 'In [2]:'), 'the completion, once it came').toBe(
      'In [2]: slow.unique_attribute_name',
    );
  });

  it('tracebacks say the In [n] of the notebook, whichever language ran before', async () => {
    const s = await start();
    await s.run('%%js\n1\n'); // a %%js body ends with an empty line
    await s.waitFor((t) => t.includes('In [2]:'));
    await s.run('1 / 0');
    await s.waitFor((t) => t.includes('ZeroDivisionError') && t.includes('In [3]:'));
    expect(s.text()).toContain('Cell In[2], line 1'); // the Python kernel's own count is 1
    s.write('%%js\nnull.x\n');
    await s.waitFor((t) => t.includes('null.x'));
    s.write('\r');
    await s.waitFor((t) => t.includes('TypeError') && t.includes('In [4]:'));
    expect(s.text()).toMatch(/at Cell In\[3\]:\d+:\d+/);
  });

  it('%load puts the file into the next prompt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-load-'));
    writeFileSync(join(dir, 'snippet.py'), 'loaded = 6 * 7\n');
    const s = await start(['--cwd', dir]);
    await s.run('%load snippet.py');
    const loaded = await s.waitFor((t) => /^In \[2\]: \S/m.test(t), 'a text at the next prompt');
    const prompt = loaded.slice(loaded.lastIndexOf('In [2]:')).split('\n').slice(0, 2);
    expect(
      prompt.map((line) => line.trimEnd()),
      'the file',
    ).toEqual(['In [2]: # %load snippet.py', '   ...: loaded = 6 * 7']);
    s.write('\r');
    const ran = await s.waitFor((t) => cellStatus(t, 2) !== undefined, 'the loaded cell');
    expect(cellStatus(ran, 2)).toMatch(/^✓ \[2\] ok/);
    await s.run('loaded');
    const answer = await s.waitFor((t) => cellStatus(t, 3) !== undefined, 'the next cell');
    expect(lineStarting(answer, 'Out[3]:')).toBe('Out[3]: 42');
  });
});
