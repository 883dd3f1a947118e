import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it, vi } from 'vitest';
import { cursorWindow } from '../../src/tui/components/Editor.js';
import { reflowedRows } from '../../src/tui/terminal/inkTerminal.js';
import { columnsOf, drawnCells, expandTabs, graphemeCells } from '../../src/tui/text/graphemes.js';
import wrapText, { truncateText } from '../../src/tui/text/inkWrapText.js';

describe('the width of text in the terminal', () => {
  const unit = fc.constantFrom(
    'a',
    ' ',
    '~',
    '●',
    '│',
    '…',
    '⠋',
    '日',
    '😀',
    '👩‍💻',
    '🇫🇷',
    'e\u0301',
    '\x1b[31m',
    '\x1b[0m',
    '⏱',
    '\t',
  );

  it("is string-width's, fast path and cache included", () => {
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 40 }), (units) => {
        const text = units.join('');
        expect(columnsOf(text)).toBe(stringWidth(text));
        expect(columnsOf(text)).toBe(stringWidth(text)); // again, from the cache
      }),
      { numRuns: 500 },
    );
  });

  it('of a truncated line is never more than its box, wide characters at the cut included', () => {
    // cli-truncate alone gives 81 columns for 41 CJK characters cut at 80: the terminal wraps it.
    expect(truncateText('行'.repeat(41), 80)).toBe(`${'行'.repeat(39)}…`);
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 60 }), fc.integer({ min: 1, max: 50 }), (units, columns) => {
        const text = units.join('');
        for (const position of ['start', 'middle', 'end'] as const) {
          const cut = truncateText(text, columns, position);
          expect(columnsOf(cut)).toBeLessThanOrEqual(columns);
          if (columnsOf(text) <= columns) expect(cut).toBe(text);
        }
        expect(columnsOf(wrapText(text, columns, 'truncate-end'))).toBeLessThanOrEqual(columns);
      }),
      { numRuns: 500 },
    );
  });
});

describe('measuring without segmenting', () => {
  it('measures coloured narrow text (the status line) without segmenting it', () => {
    const status = '\x1b[32m● idle\x1b[39m\x1b[2m │ Python 3.11 │ /tmp │ [0]  /help · ctrl+o output\x1b[22m';
    const width = stringWidth(status);
    const segment = vi.spyOn(Intl.Segmenter.prototype, 'segment');
    try {
      expect(columnsOf(status)).toBe(width);
      expect(segment).not.toHaveBeenCalled();
    } finally {
      segment.mockRestore();
    }
  });

  it('counts the rows of a reflowed frame as string-width does, without segmenting narrow lines', () => {
    const frame = `\x1b[32mIn [301]: \x1b[39m\x1b[7m \x1b[27m\n${'x'.repeat(130)}\n\n● idle │ Python 3.11 │ [300]`;
    const segment = vi.spyOn(Intl.Segmenter.prototype, 'segment');
    try {
      expect(reflowedRows(frame, 80)).toBe(5);
      expect(segment).not.toHaveBeenCalled();
    } finally {
      segment.mockRestore();
    }
    // Wide characters take two columns each: 50 of them are 100 columns, two rows of 80.
    expect(reflowedRows(`${'日'.repeat(50)}\n😀`, 80)).toBe(3);
  });

  it('cuts a line into graphemes as Intl.Segmenter does, and printable ASCII without it', () => {
    const segmented = (text: string) =>
      [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((s) => ({
        offset: s.index,
        text: s.segment,
        width: stringWidth(s.segment),
      }));
    const unit = fc.constantFrom('a', ' ', '~', 'x = 1', '日', '😀', '👩‍💻', 'e\u0301', '\t', '●');
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 20 }), (units) => {
        const text = units.join('');
        expect(graphemeCells(text)).toEqual(segmented(text));
      }),
      { numRuns: 300 },
    );
    const segment = vi.spyOn(Intl.Segmenter.prototype, 'segment');
    try {
      expect(graphemeCells('print("hi")')).toHaveLength(11);
      expect(graphemeCells('')).toEqual([]);
      expect(segment).not.toHaveBeenCalled();
    } finally {
      segment.mockRestore();
    }
  });
});

describe('tabs in code', () => {
  it('are drawn as spaces to the next tab stop from the start of the line, and counted so', () => {
    expect(expandTabs('\tif x:\n\t\tpy\t1')).toBe('    if x:\n        py  1');
    expect(expandTabs('日\tx')).toBe('日  x'); // a wide character takes two columns of the stop
    const cells = drawnCells('a\tb');
    expect(cells).toEqual([
      { offset: 0, text: 'a', width: 1 },
      { offset: 1, text: '   ', width: 3 },
      { offset: 2, text: 'b', width: 1 },
    ]);
  });

  it('never reach the terminal raw from the editor, and the cursor on one is drawn', () => {
    const line = 'u = "\tA\tBB\t|"';
    for (let col = 0; col <= line.length; col++) {
      const view = cursorWindow(line, col, 60);
      const drawn = view.before + view.at + view.after;
      expect(drawn).not.toContain('\t');
      expect(columnsOf(drawn)).toBeLessThanOrEqual(60);
      expect(view.at.length).toBeGreaterThan(0);
    }
    expect(cursorWindow(line, 5, 60)).toEqual({ before: 'u = "', at: '   ', after: 'A   BB  |"' });
  });
});
