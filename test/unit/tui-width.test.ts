import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { columnsOf } from '../../src/tui/lib/graphemes.js';

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
});
