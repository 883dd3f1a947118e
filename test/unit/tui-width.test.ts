import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { columnsOf } from '../../src/tui/lib/graphemes.js';
import wrapText, { truncateText } from '../../src/tui/lib/inkWrapText.js';

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
