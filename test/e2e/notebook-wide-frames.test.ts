/**
 * A wide DataFrame in the notebook (issue 43, item 4), in a real terminal with Debian's
 * /usr/bin/python3 and pandas: the kernel formats to the notebook's width, and the collapsed
 * preview shows the rows of its last column block under that block's header.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openNotebook, type Screen } from '../helpers/pty.js';

const FRAME =
  'import pandas as pd, numpy as np; df = pd.DataFrame(np.arange(1000 * 14).reshape(1000, 14), columns=["column_%d" % i for i in range(14)])';

const open: Screen[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.kill();
});

async function start(columns: number) {
  const s = openNotebook(['--python', '/usr/bin/python3'], { columns, rows: 40 });
  open.push(s);
  await s.waitFor((t) => t.includes('In [1]:') && t.includes('● idle'), 'the prompt and an idle kernel');
  return s;
}

describe('a wide DataFrame in the notebook', () => {
  it('collapsed, the last block of its table comes with its own header', async () => {
    const s = await start(80);
    await s.run(FRAME);
    await s.waitFor((t) => t.includes('In [2]:'), 'the frame made');
    await s.run('df');
    const screen = await s.waitFor((t) => t.includes('In [3]:') && t.includes('more lines'), 'the preview');
    const lines = screen.split('\n');
    const gap = lines.findIndex((l) => l.includes('more lines'));
    expect(lines[gap + 1]).toMatch(/^┌/);
    expect(lines[gap + 2]).toMatch(/column_1[23]/); // the last block's own columns
    expect(lines[gap + 3]).toMatch(/^├/);
  });

  it("the kernel formats to the notebook's width (pandas and COLUMNS)", async () => {
    const s = await start(110);
    await s.run(`${FRAME}; pd.set_option("display.max_columns", 20); import shutil`);
    await s.waitFor((t) => t.includes('In [2]:'), 'the frame made');
    await s.run(
      'print(pd.get_option("display.width"), shutil.get_terminal_size().columns); print(repr(df.head(3)))',
    );
    const screen = await s.waitFor((t) => t.includes('In [3]:') && t.includes('110 110'), 'the width');
    const repr = screen.split('\n').filter((l) => /^\s+column_\d/.test(l));
    expect(repr.length).toBeGreaterThan(1); // wrapped into blocks
    for (const line of repr) expect(line.length).toBeLessThanOrEqual(110);
    expect(Math.max(...repr.map((l) => l.trimEnd().length))).toBeGreaterThan(80);
  });
});
