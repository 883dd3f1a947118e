import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputRow, OutputRows } from '../../src/tui/components/OutputRow.js';
import { Box, renderToString } from '../../src/tui/ink.js';
import type { Stream, TextRow } from '../../src/tui/state/output.js';

const piece = fc.constantFrom(
  'plain text',
  ' ',
  '',
  'x'.repeat(130),
  '中文字符',
  '😀👍🏽',
  'e\u0301',
  '\x1b[31mred\x1b[0m',
  '\x1b[1;32mbold green',
  '\ttab',
  'trailing   ',
);
const row = fc.record({
  stream: fc.constantFrom<Stream>('stdout', 'stderr', 'status', 'notice', 'display', 'result'),
  text: fc.array(piece, { maxLength: 5 }).map((parts) => parts.join('')),
  cut: fc.constantFrom(0, 0, 17),
});

describe('printed rows as one text (OutputRows)', () => {
  it('draws what an OutputRow for each row draws, at any width', () => {
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 8, max: 120 }),
        (drawn, columns) => {
          // (A run is of one stream: the first row's.)
          const stream = (drawn[0] as { stream: Stream }).stream;
          const rows: TextRow[] = drawn.map((r) => ({
            kind: 'text',
            stream,
            text: r.text,
            ...(r.cut ? { cut: r.cut } : {}),
          }));
          const each = renderToString(
            <Box flexDirection="column">
              {rows.map((r, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: as CellBlock keys its items, by place
                <Box key={`o${i}`} flexDirection="column">
                  <OutputRow row={r} live={false} />
                </Box>
              ))}
            </Box>,
            { columns },
          );
          const run = renderToString(<OutputRows rows={rows} />, { columns });
          // (Ink's wrapping composes the characters (NFC) of all of a text it wraps: one text, the
          // rows that do not wrap too. Terminals show both forms alike.)
          expect(run.normalize()).toBe(each.normalize());
          if (rows.every((r) => r.text === r.text.normalize())) expect(run).toBe(each);
        },
      ),
      { numRuns: 300 },
    );
  });
});
