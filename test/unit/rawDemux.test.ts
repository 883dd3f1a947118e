import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RAW_MARK, RAW_MARK_END, RawOutputDemux, RawStreamDemux } from '../../src/eval/kernel/rawDemux.js';

const TOKEN = 'a1b2c3d4e5f6';
const mark = (id: string, token = TOKEN) => `${RAW_MARK}${token}:${id}${RAW_MARK_END}`;

/** Output pieces with what trips a marker parser: NULs, fake markers, the start of a real one. */
const piece = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('\u0000', '\u0000\u0000', 'omp-sync:', '\u0000omp-sync', RAW_MARK, `${RAW_MARK}${TOKEN}`),
  fc.constantFrom(
    mark('k1-c1', 'ffffffffffff'),
    `${RAW_MARK}wrong:id${RAW_MARK_END}`,
    '\u0000omp-sync:\u0000',
  ),
  fc.string({
    unit: fc.constantFrom('\u0000', 'o', 'm', 'p', '-', 's', 'y', 'n', 'c', ':', 'a', '1'),
    maxLength: 30,
  }),
);
const cellId = fc.stringMatching(/^k[0-9]{1,3}-c[0-9]{1,4}$/);
/** Data never contains a whole real marker start (only the runner can write the secret token). */
const data = fc
  .array(piece, { maxLength: 12 })
  .map((p) => p.join(''))
  .filter((d) => !d.includes(`${RAW_MARK}${TOKEN}:`));

/** Feeds `stream` in chunks cut at `cuts` (sizes, reused in turn). */
function feed(demux: RawStreamDemux, stream: string, cuts: number[]) {
  let text = '';
  const marks: string[] = [];
  for (let at = 0, i = 0; at < stream.length; i++) {
    const size = cuts[i % cuts.length] as number;
    const out = demux.push(stream.slice(at, at + size));
    text += out.text;
    marks.push(...out.marks);
    at += size;
  }
  return { text: text + demux.end(), marks };
}

describe('the js raw output demultiplexer', () => {
  it('passes any output through unchanged and finds every marker, however the stream is cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(data, cellId), { maxLength: 8 }),
        data,
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 30 }),
        (cells, trailing, cuts) => {
          // Each cell's output, then its marker; output that follows the last marker ends the stream.
          const stream = cells.map(([out, id]) => out + mark(id)).join('') + trailing;
          const { text, marks } = feed(new RawStreamDemux(TOKEN), stream, cuts);
          expect(text).toBe(cells.map(([out]) => out).join('') + trailing);
          expect(marks).toEqual(cells.map(([, id]) => id));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('holds back a marker split across chunks, even one byte at a time', () => {
    const demux = new RawStreamDemux(TOKEN);
    const stream = `before${mark('k1-c2')}after`;
    const { text, marks } = feed(demux, stream, [1]);
    expect(text).toBe('beforeafter');
    expect(marks).toEqual(['k1-c2']);
  });

  it('gives up on a marker start whose end never comes, and shows it as text', () => {
    const demux = new RawStreamDemux(TOKEN);
    const open = `${RAW_MARK}${TOKEN}:${'x'.repeat(300)}`;
    expect(demux.push(open).text).toBe(open);
    expect(demux.end()).toBe('');
  });

  it('a cell is synced once its markers came through on both streams', () => {
    const demux = new RawOutputDemux(TOKEN);
    expect(demux.push('stdout', `out${mark('k1-c1')}`)).toBe('out');
    expect(demux.synced('k1-c1')).toBe(false);
    expect(demux.push('stderr', `err${mark('k1-c1').slice(0, 5)}`)).toBe('err');
    expect(demux.synced('k1-c1')).toBe(false);
    expect(demux.push('stderr', mark('k1-c1').slice(5))).toBe('');
    expect(demux.synced('k1-c1')).toBe(true);
    demux.forget('k1-c1');
    expect(demux.synced('k1-c1')).toBe(false);
  });
});
