/**
 * The notebook's width reaches its kernel as a terminal's does (issue 43, item 4): COLUMNS for
 * shutil.get_terminal_size() and commands, and pandas' display.width, so a wide frame is formatted
 * to the notebook's columns. The notebook's own backend with a real kernel in Debian's
 * /usr/bin/python3 (pandas 1.5); a front end that sends no width (the tool) leaves pandas as it was.
 */
import { describe, expect, it } from 'vitest';
import type { OutputEvent } from '../../src/eval/index.js';
import { executorBackend, type NotebookBackend } from '../../src/tui/backend.js';
import { makeExecutor } from '../helpers/executor.js';

const DEBIAN_PYTHON = '/usr/bin/python3';
const FRAME =
  'import pandas as pd, numpy as np\ndf = pd.DataFrame(np.arange(1000 * 14).reshape(1000, 14), columns=["column_%d" % i for i in range(14)])';

async function printed(backend: NotebookBackend, code: string): Promise<string> {
  let text = '';
  const result = await backend.runCell({
    code,
    onEvent: (event: OutputEvent) => {
      if (event.kind === 'stdout') text += event.text;
    },
  });
  expect(result.status, text).toBe('ok');
  return text;
}

const widest = (text: string) => Math.max(...text.split('\n').map((line) => line.length));

describe("the notebook's width in the kernel", () => {
  it('pandas, COLUMNS and get_terminal_size follow the notebook, from the cell that imports pandas on', async () => {
    let columns = 120;
    const executor = makeExecutor({ settings: { 'python.interpreter': DEBIAN_PYTHON } });
    const backend = await executorBackend(executor, { cwd: process.cwd(), columns: () => columns });
    // pandas imported in this very cell: told as it loads.
    const first = await printed(
      backend,
      `${FRAME}\nimport os, shutil\nprint(pd.get_option("display.width"), shutil.get_terminal_size().columns, os.environ["COLUMNS"])\nprint(repr(df))`,
    );
    expect(first.split('\n')[0]).toBe('120 120 120');
    // (pandas in a terminal fits the columns it shows to the width: more than 80 of them)
    expect(widest(first)).toBeLessThanOrEqual(120);
    expect(widest(first)).toBeGreaterThan(80);
    // Wrapped into blocks (as Jupyter's max_columns makes it): each block at most as wide.
    const wrapped = await printed(backend, 'pd.set_option("display.max_columns", 20)\nprint(repr(df))');
    expect(widest(wrapped)).toBeLessThanOrEqual(120);
    expect(widest(wrapped)).toBeGreaterThan(80);
    expect(await printed(backend, '!echo "cols=$COLUMNS"')).toContain('cols=120');
    // The notebook resized: the next cell has the new width.
    columns = 60;
    const narrow = await printed(backend, 'print(pd.get_option("display.width"))\nprint(repr(df))');
    expect(narrow.split('\n')[0]).toBe('60');
    expect(widest(narrow)).toBeLessThanOrEqual(60);
    await backend.dispose();
  });

  it('keeps a display.width the user chose, and tells pandas nothing when the front end sends no width', async () => {
    const executor = makeExecutor({ settings: { 'python.interpreter': DEBIAN_PYTHON } });
    const backend = await executorBackend(executor, { cwd: process.cwd(), columns: () => 150 });
    await printed(backend, 'import pandas as pd\npd.set_option("display.width", 100)');
    expect(await printed(backend, 'print(pd.get_option("display.width"))')).toBe('100\n');
    await backend.dispose();
    const tool = makeExecutor({ settings: { 'python.interpreter': DEBIAN_PYTHON } });
    const [r] = await tool.runOnce([{ code: 'import pandas as pd\nprint(pd.get_option("display.width"))' }]);
    expect(r?.text).toBe('80\n');
  });
});
