import xterm from '@xterm/headless';
import chalk from 'chalk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CellBlock } from '../../src/tui/components/CellBlock.js';
import { renderToString } from '../../src/tui/ink.js';
import { createPrinter, plainBlock } from '../../src/tui/rendering/printer.js';
import { emptyOutput, textOutput } from '../../src/tui/state/output.js';
import type { CellView } from '../../src/tui/state/reducer.js';

let level: typeof chalk.level;
beforeAll(() => {
  level = chalk.level;
  chalk.level = 3;
});
afterAll(() => {
  chalk.level = level;
});

const cell = (extra: Partial<CellView> = {}): CellView => ({
  id: 1,
  code: '1+1',
  language: 'py',
  status: 'ok',
  executionCount: 3,
  durationMs: 4,
  output: emptyOutput(),
  ...extra,
});

/** What a terminal `columns` wide shows of `text`: each cell's character and style. */
async function drawn(text: string, columns: number): Promise<string[]> {
  const term = new xterm.Terminal({ cols: columns, rows: 40, allowProposedApi: true, convertEol: true });
  await new Promise<void>((resolve) => term.write(text, resolve));
  const rows: string[] = [];
  const buffer = term.buffer.active;
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(y);
    if (!line) break;
    const cells: string[] = [];
    for (let x = 0; x < columns; x++) {
      const c = line.getCell(x);
      if (!c) break;
      cells.push(
        `${c.getChars() || ' '}:${c.getFgColorMode()}/${c.getFgColor()}:${c.isBold()}${c.isDim()}${c.isItalic()}`,
      );
    }
    rows.push(cells.join(' '));
  }
  term.dispose();
  return rows;
}

describe("a printed cell's header and code made without Ink", () => {
  const cells: [string, CellView][] = [
    ['a plain cell', cell()],
    ["an agent's titled cell", cell({ party: { by: 'agent', call: 12, cell: 1, cells: 2 }, title: 'sum' })],
    ['an error', cell({ status: 'error', code: 'raise ValueError("x")  # why' })],
    ['skipped, no count', cell({ status: 'skipped', executionCount: undefined, durationMs: undefined })],
    ['keywords, strings, blank and indented lines', cell({ code: 'def f(x):\n\n    return "a" + str(x)\n' })],
    ['a tab and wide characters', cell({ code: 'if 1:\n\tprint("日本語 ✓")' })],
    ['JavaScript', cell({ language: 'js', code: 'let x = [1].map((n) => n * 2); // 2×' })],
    ['trailing spaces', cell({ code: 'x = 1   \ny = 2 ' })],
  ];
  for (const [what, c] of cells) {
    it(`draws ${what} as Ink does`, async () => {
      for (const columns of [40, 100]) {
        for (const color of [true, false]) {
          const direct = plainBlock(c, color, columns);
          expect(direct).toBeDefined();
          const ink = renderToString(<CellBlock cell={c} color={color} />, { columns });
          expect(await drawn(direct as string, columns)).toEqual(await drawn(ink, columns));
        }
      }
    });
  }

  it('leaves to Ink what it would cut or wrap, and control characters', () => {
    expect(plainBlock(cell({ code: 'x'.repeat(39) }), true, 40)).toBeUndefined();
    expect(plainBlock(cell({ code: 'x'.repeat(38) }), true, 40)).toBeDefined();
    expect(plainBlock(cell({ title: 't'.repeat(40) }), true, 40)).toBeUndefined();
    expect(plainBlock(cell({ code: 'print("\x1b[31mred")' }), true, 40)).toBeUndefined();
    expect(plainBlock(cell({ code: 'a\rb' }), true, 40)).toBeUndefined();
  });
});

describe('printing finished cells', () => {
  it('writes the cells finished together in one write, in order (each write redraws the live frame)', () => {
    const writes: string[] = [];
    const printer = createPrinter({
      write: (t) => writes.push(t),
      color: false,
      imageMode: 'off',
      columns: () => 60,
    });
    printer.print([
      cell({ id: 1, code: 'a = 1', executionCount: 1 }),
      cell({ id: 2, code: 'print(a)', executionCount: 2, output: textOutput('stdout', 'one') }),
      cell({ id: 3, code: 'a + 1', executionCount: 3 }),
    ]);
    expect(writes).toHaveLength(1);
    const text = writes[0] as string;
    const at = ['a = 1', 'print(a)', 'one', 'a + 1'].map((part) => text.indexOf(part));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((x, y) => x - y)).toEqual(at);
  });
});
