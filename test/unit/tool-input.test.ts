import { describe, expect, it } from 'vitest';
import { renderToolText, ToolInputError, validateToolInput } from '../../src/eval/tool.js';
import { cellResult } from '../helpers/results.js';

function problems(input: unknown): string[] {
  try {
    validateToolInput(input);
  } catch (err) {
    if (err instanceof ToolInputError) return err.problems;
    throw err;
  }
  return [];
}

describe('validateToolInput', () => {
  it('accepts a well-formed call', () => {
    const params = { cells: [{ language: 'py', code: '1', title: 't', timeout: 5, reset: true }] };
    expect(validateToolInput(params)).toEqual(params);
  });

  it('names every malformed field', () => {
    expect(problems(null)).toEqual(['the input must be an object like {"cells": [...]}, got null']);
    expect(problems([])).toEqual(['the input must be an object like {"cells": [...]}, got an array']);
    expect(problems({})).toEqual(['"cells" must be an array of cells, got undefined']);
    expect(problems({ cells: [] })).toEqual(['"cells" must contain at least one cell']);
    expect(problems({ cells: [], extra: 1 })).toContain('unknown field "extra" (only "cells" is accepted)');
    expect(
      problems({
        cells: [
          'print(1)',
          { code: 1 },
          { language: 'rb', code: '', title: 3, timeout: 'soon', reset: 'yes', lang: 'py' },
          { language: 'py', code: 'x', timeout: -2 },
        ],
      }),
    ).toEqual([
      'cells[0] must be an object with "language" and "code", got "print(1)"',
      'cells[1].language must be "py" or "js", got nothing',
      'cells[1].code must be a string, got 1',
      'cells[2] has unknown field "lang" (allowed: language, code, title, timeout, reset)',
      'cells[2].language must be "py" or "js", got "rb"',
      'cells[2].title must be a string, got 3',
      'cells[2].timeout must be a positive number of seconds (clamped to 1..3600), got "soon"',
      'cells[2].reset must be true or false, got "yes"',
      'cells[3].timeout must be a positive number of seconds (clamped to 1..3600), got -2',
    ]);
  });
});

describe('renderToolText', () => {
  const cell = cellResult;

  it('prefixes cells when there are several and names the failed one', () => {
    const text = renderToolText([
      cell({ text: 'one\n', title: 'load' }),
      cell({ index: 1, status: 'error', exitCode: 1, text: 'Traceback\nValueError: x\n' }),
      cell({ index: 2, status: 'skipped', exitCode: null }),
      cell({ index: 3, status: 'skipped', exitCode: null }),
    ]);
    expect(text).toBe(
      '[1/4] load\none\n\n[2/4]\nTraceback\nValueError: x\n\n' +
        'Cell 2 failed (exit code 1). Earlier cells succeeded—their state persists. Cells 3-4 were not run. Fix only cell 2.',
    );
    // Where the kernels end with the call, so does the state: the earlier cells must come again.
    const oneShot = renderToolText(
      [cell({ text: 'one\n' }), cell({ index: 1, status: 'error', exitCode: 1, text: 'ValueError: x\n' })],
      true,
    );
    expect(oneShot).toMatch(
      /Cell 2 failed \(exit code 1\)\. Earlier cells succeeded, but their state ends with this call\. Fix cell 2 and send the cells again\.$/,
    );
  });

  it("says notices in the order they happened: a replaced kernel before the output that shows the cell's own", () => {
    const replaced =
      'The previous Python kernel had exited (exit code 3); a new kernel was started and earlier state is gone.';
    const own = 'The Python kernel exited while running this cell (exit code 4).';
    const text = renderToolText([
      cell({ status: 'error', exitCode: 4, text: `partial\n[${own}]\n`, notices: [replaced, own, 'later'] }),
    ]);
    expect(text.startsWith(`[${replaced}]\npartial\n[${own}]\n[later]`)).toBe(true);
  });

  it('shows a single cell without prefix', () => {
    expect(renderToolText([cell({ text: '42\n' })])).toBe('42');
    expect(renderToolText([cell({})])).toBe('(no output)');
  });
});
