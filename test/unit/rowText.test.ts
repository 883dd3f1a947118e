import chalk from 'chalk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printedOutput, rowLine } from '../../src/tui/rendering/rowText.js';
import { type Output, textOutput } from '../../src/tui/state/output.js';
import type { CellView } from '../../src/tui/state/reducer.js';

let level: typeof chalk.level;
beforeAll(() => {
  level = chalk.level;
  chalk.level = 1;
});
afterAll(() => {
  chalk.level = level;
});

const cell = (output: Output, extra: Partial<CellView> = {}): CellView =>
  ({
    id: 1,
    kind: 'code',
    code: 'x',
    language: 'py',
    status: 'ok',
    executionCount: 3,
    output,
    ...extra,
  }) as CellView;

describe('output rows as lines of text', () => {
  it('colours a row by its stream, a traceback as IPython, a result with its Out[n]', () => {
    expect(rowLine({ kind: 'text', stream: 'stdout', text: 'plain' })).toBe('plain');
    expect(rowLine({ kind: 'text', stream: 'stderr', text: 'err' })).toBe('\x1b[31merr\x1b[39m');
    expect(rowLine({ kind: 'text', stream: 'status', text: 'restarted' })).toBe(
      '\x1b[36m· restarted\x1b[39m',
    );
    expect(rowLine({ kind: 'text', stream: 'result', text: '42' }, 7)).toBe('\x1b[31mOut[7]: \x1b[39m42');
    expect(rowLine({ kind: 'text', stream: 'error', text: 'ZeroDivisionError: division by zero' })).toBe(
      '\x1b[1m\x1b[31mZeroDivisionError: division by zero\x1b[39m\x1b[22m',
    );
    expect(rowLine({ kind: 'text', stream: 'error', text: '  Cell In[3], line 1' })).toBe(
      '  \x1b[36mCell In[3]\x1b[39m\x1b[32m, line 1\x1b[39m',
    );
  });

  it("ends the colour a cell's text set with its line, and notes a cut in no colour of the text's", () => {
    expect(rowLine({ kind: 'text', stream: 'stdout', text: '\x1b[31mred' })).toBe('\x1b[31mred\x1b[0m');
    const cut = rowLine({ kind: 'text', stream: 'stdout', text: `\x1b[31m${'r'.repeat(3995)}`, cut: 1080 });
    expect(cut).toBe(`\x1b[31m${'r'.repeat(3995)}\x1b[0m\x1b[2m… [1080 chars omitted]\x1b[22m`);
  });

  it("prints what the cell printed one line a row, and the notebook's words wrapped at the width", () => {
    const long = `${'a'.repeat(150)} end`;
    const printed = printedOutput(cell(textOutput('stdout', `${long}\n`)), false, 80);
    expect(printed).toEqual([long]);
    const notice = `The cell did not stop within 5 s: the kernel was killed and its state is lost.`;
    const [line] = printedOutput(cell(textOutput('notice', `${notice}\n`)), false, 40);
    expect(chalk.reset(line).replace(/\x1b\[[0-9;]*m/g, '')).toBe(
      'The cell did not stop within 5 s: the\nkernel was killed and its state is lost.',
    );
  });

  it("wraps the notebook's messages, but not what threads printed between cells", () => {
    const text = `${'word '.repeat(30).trim()}\n`;
    const message = printedOutput(cell(textOutput('stdout', text), { kind: 'info' }), false, 40);
    expect(message[0]?.split('\n')).toHaveLength(4);
    const printed = printedOutput(
      cell(textOutput('stdout', text), { kind: 'info', background: true }),
      false,
      40,
    );
    expect(printed).toEqual([text.trim()]);
  });

  it("never cuts a path in the notebook's notes, and ends no line with the space it wrapped at", () => {
    const output = textOutput('stdout', Array.from({ length: 3000 }, (_, i) => `line ${i}\n`).join(''));
    const path = `/tmp/omp-eval-artifacts-0/${'f'.repeat(36)}.txt`;
    const spilled: Output = { ...output, omitted: 1000, spill: { path } };
    const note = printedOutput(cell(spilled), false, 60).at(-1) as string;
    const plain = note.replace(/\x1b\[[0-9;]*m/g, '');
    expect(plain.split('\n')).toEqual(['… 1000 lines not kept; the whole output is in', path]);
  });

  it('puts Out[n]: on a line of its own above a result of several rows, as IPython', () => {
    const output = textOutput('result', 'row 1\nrow 2\n');
    expect(printedOutput(cell(output), false, 80)).toEqual(['\x1b[31mOut[3]:\x1b[39m', 'row 1', 'row 2']);
  });
});
