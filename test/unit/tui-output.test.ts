import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { compactingCollection } from '../../src/tui/runtime/memory.js';
import { outputsOf } from '../../src/tui/session/save.js';
import { openSpill } from '../../src/tui/session/spill.js';
import {
  HEAD_ROWS,
  KEPT_CHARS,
  MAX_LINE_CHARS,
  OutputBuffer,
  rowsOf,
  type Stream,
  spillNote,
  TAIL_ROWS,
} from '../../src/tui/state/output.js';
import { BatchReader, tailCut } from '../../src/tui/state/outputText.js';

const nothingToSpill = () => ({ push() {}, end() {}, where: {} });

const keptChars = (b: OutputBuffer) =>
  rowsOf(b.snapshot()).reduce((n, r) => n + (r.kind === 'text' ? r.text.length : 0), 0);

describe("a cell's output in the notebook", () => {
  it('keeps nothing beyond a clamped line of a 25 MB line, and names the file with all of it', () => {
    const buffer = new OutputBuffer(openSpill);
    const chunk = 'y'.repeat(512 * 1024);
    for (let i = 0; i < 50; i++) buffer.appendText('stdout', chunk); // 25 MiB, one line
    buffer.appendText('stdout', '\n');
    buffer.end();
    const output = buffer.snapshot();
    expect(rowsOf(output)).toHaveLength(1);
    const row = rowsOf(output)[0];
    expect(row?.kind === 'text' && row.text.length).toBe(MAX_LINE_CHARS);
    expect(row?.kind === 'text' && row.cut).toBe(50 * chunk.length - MAX_LINE_CHARS);
    const path = output.spill?.path as string;
    expect(spillNote(output)).toContain(path);
    expect(readFileSync(path, 'utf8').length).toBe(50 * chunk.length + 1);
  });

  it('keeps the first and last rows of 200,000 lines, counts the rest, and spills them all', () => {
    const buffer = new OutputBuffer(openSpill);
    for (let block = 0; block < 100; block++) {
      let text = '';
      for (let i = 0; i < 2000; i++) text += `line ${block * 2000 + i}\n`;
      buffer.appendText('stdout', text);
    }
    buffer.end();
    const output = buffer.snapshot();
    expect(output.head).toHaveLength(HEAD_ROWS);
    expect(output.tail).toHaveLength(TAIL_ROWS);
    expect(output.omitted).toBe(200_000 - HEAD_ROWS - TAIL_ROWS);
    expect(output.tail.at(-1)).toMatchObject({ text: 'line 199999' });
    const file = readFileSync(output.spill?.path as string, 'utf8');
    expect(file.split('\n')).toHaveLength(200_001);
    expect(file).toContain('line 123456\n');
    // Saved as .ipynb: the rows kept, and between them a line saying what was left out and where.
    const [saved] = outputsOf(output) as { name: string; text: string[] }[];
    expect(saved?.name).toBe('stdout');
    const text = saved?.text ?? [];
    expect(text[HEAD_ROWS - 1]).toBe(`line ${HEAD_ROWS - 1}\n`);
    expect(text[HEAD_ROWS]).toBe(`[${spillNote(output)}]\n`);
    expect(text[HEAD_ROWS]).toContain(`${200_000 - HEAD_ROWS - TAIL_ROWS} lines not kept`);
    expect(text[HEAD_ROWS]).toContain(output.spill?.path as string);
    expect(text[HEAD_ROWS + 1]).toBe(`line ${200_000 - TAIL_ROWS}\n`);
    expect(text).toHaveLength(HEAD_ROWS + 1 + TAIL_ROWS);
  });

  it('bounds the characters kept, whatever the shape of the lines', () => {
    const buffer = new OutputBuffer(openSpill);
    for (let i = 0; i < 3000; i++) buffer.appendText('stdout', `${'z'.repeat(3000)}\n`);
    buffer.end();
    expect(keptChars(buffer)).toBeLessThanOrEqual(KEPT_CHARS);
  });

  it('takes a character off the line for each backspace, as Jupyter does, across reads', () => {
    const buffer = new OutputBuffer(nothingToSpill);
    // A spinner: one character, then `\b` and the next one, each in a read of its own.
    buffer.appendText('stdout', 'working |');
    for (const c of '/-\\|') {
      buffer.snapshot();
      buffer.appendText('stdout', `\b${c}`);
    }
    expect(buffer.snapshot().head).toMatchObject([{ text: 'working |' }]);
    buffer.appendText('stdout', '\b\b\b\b\b\b\b\b\bdone 😀\b!\n\bnext\n');
    buffer.end();
    expect(rowsOf(buffer.snapshot()).map((r) => r.kind === 'text' && r.text)).toEqual(['done !', 'next']);
    // Colour is no character: the backspace takes the `c` before it, in one read or across two.
    const coloured = new OutputBuffer(nothingToSpill);
    coloured.appendText('stdout', '\x1b[31mabc\x1b[0m\bX\n\x1b[31mabc\x1b[0m');
    coloured.snapshot();
    coloured.appendText('stdout', '\bX\n');
    expect(rowsOf(coloured.snapshot()).map((r) => r.kind === 'text' && r.text)).toEqual([
      '\x1b[31mab\x1b[0mX',
      '\x1b[31mab\x1b[0mX',
    ]);
  });

  it('shows a line that ends in \\r until text replaces it, as a terminal does', () => {
    const buffer = new OutputBuffer(nothingToSpill);
    // A progress indicator that ends each update with \r: each read shows the latest.
    buffer.appendText('stdout', ' 50%\r');
    expect(buffer.snapshot().head).toMatchObject([{ text: ' 50%' }]);
    buffer.appendText('stdout', ' 60%\r');
    expect(buffer.snapshot().head).toMatchObject([{ text: ' 60%' }]);
    buffer.appendText('stdout', 'done\n');
    // A \r\n whose halves came in two reads ends the line; the text stays.
    buffer.appendText('stdout', 'first\r');
    buffer.snapshot();
    buffer.appendText('stdout', '\r\nsecond\r\n');
    buffer.end();
    expect(rowsOf(buffer.snapshot()).map((r) => r.kind === 'text' && r.text)).toEqual([
      'done',
      'first',
      'second',
    ]);
  });

  it('reads a line across the texts it came in, without a read between them', () => {
    // Settled because much text waits: lines, a \r\n and a 300,000-character line cut across texts.
    const buffer = new OutputBuffer(nothingToSpill);
    const texts = ['one\ntw', 'o\r', '\nthr', 'ee'];
    for (let i = 0; i < 10; i++) texts.push('x'.repeat(30_000));
    texts.push('\r', '\nlast\n');
    for (const text of texts) buffer.appendText('stdout', text);
    for (let i = 0; i < 8; i++) buffer.appendText('stdout', `${'y'.repeat(200_000)}\n`);
    buffer.end();
    const rows = rowsOf(buffer.snapshot()).map((r) =>
      r.kind === 'text' ? [r.text.slice(0, 12), r.cut] : [],
    );
    expect(rows.slice(0, 4)).toEqual([
      ['one', undefined],
      ['two', undefined],
      [`three${'x'.repeat(7)}`, 300_005 - MAX_LINE_CHARS],
      ['last', undefined],
    ]);
  });

  it('keeps no more than its rows: not the texts they were cut from', () => {
    // Rows cut from texts of 4 MB (a slice of a string in V8 keeps the whole string alive).
    const collect = compactingCollection();
    const line = `${'w'.repeat(60)}\n`;
    const text = (n: number) => `${n}`.padEnd(61, 'v') + line.repeat(65_000);
    collect();
    const before = process.memoryUsage().heapUsed;
    const buffer = new OutputBuffer(nothingToSpill);
    for (let n = 0; n < 8; n++) {
      buffer.appendText('stdout', text(n));
      buffer.snapshot();
    }
    // (V8 keeps the last string a regular expression looked at: a last short line replaces it.)
    buffer.appendText('stdout', 'end\n');
    buffer.snapshot();
    collect();
    const grown = process.memoryUsage().heapUsed - before;
    expect(rowsOf(buffer.snapshot())).toHaveLength(HEAD_ROWS + TAIL_ROWS);
    // The rows hold about 60 KB of text; the texts they came from, 32 MB.
    expect(grown).toBeLessThan(2 * 1024 * 1024);
  });

  it('never cuts a long line between the halves of an emoji', () => {
    for (const prefix of ['a', 'ab']) {
      const buffer = new OutputBuffer(nothingToSpill);
      const line = prefix + '😀'.repeat(2500);
      // In one piece, and continued across reads.
      buffer.appendText('stdout', `${line}\n${line.slice(0, 3001)}`);
      buffer.snapshot();
      buffer.appendText('stdout', `${line.slice(3001)}\n`);
      buffer.end();
      for (const row of rowsOf(buffer.snapshot())) {
        if (row.kind !== 'text') continue;
        expect(row.text).not.toMatch(
          /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/,
        );
        expect(row.text.length + (row.cut ?? 0)).toBe(line.length);
        expect(row.text.length).toBeGreaterThanOrEqual(MAX_LINE_CHARS - 1);
      }
    }
  });

  it('clamps a long line before a colour sequence that the clamp would cut in two', () => {
    for (let before = 1; before <= 4; before++) {
      const buffer = new OutputBuffer(nothingToSpill);
      const head = 'x'.repeat(MAX_LINE_CHARS - before);
      buffer.appendText('stdout', `${head}\x1b[31m${'r'.repeat(100)}\x1b[0m\n`);
      buffer.end();
      const [row] = rowsOf(buffer.snapshot());
      expect(row?.kind === 'text' && row.text).toBe(head);
      expect(row?.kind === 'text' && row.cut).toBe(5 + 100 + 4);
    }
  });

  it('takes nothing more into a line clamped before an emoji, however its text was read', () => {
    // 3,999 characters, an emoji that does not fit, then more: the row keeps the 3,999.
    const pieces = ['x'.repeat(MAX_LINE_CHARS - 1), '\u{1F600}', 'y', 'z\n'];
    const rows = (read: (buffer: OutputBuffer) => void) => {
      const buffer = new OutputBuffer(nothingToSpill);
      read(buffer);
      buffer.end();
      return rowsOf(buffer.snapshot());
    };
    const whole = rows((b) => b.appendText('stdout', pieces.join('')));
    expect(whole).toMatchObject([{ text: 'x'.repeat(MAX_LINE_CHARS - 1), cut: 4 }]);
    const readEach = rows((b) => {
      for (const piece of pieces) {
        b.appendText('stdout', piece);
        b.snapshot();
      }
    });
    expect(readEach).toEqual(whole);
  });

  it('writes no file for output that fits', () => {
    const buffer = new OutputBuffer(() => {
      throw new Error('no spill expected');
    });
    buffer.appendText('stdout', 'a\nb\r');
    buffer.appendText('stdout', 'c\n');
    buffer.end();
    expect(buffer.snapshot().spill).toBeUndefined();
    expect(rowsOf(buffer.snapshot()).map((r) => r.kind === 'text' && r.text)).toEqual(['a', 'c']);
  });
});

describe('text that waits to be made into rows', () => {
  it('reads a long line in batches no longer than the texts it came in (never two joined)', () => {
    // Two 64 KB reads of a line joined are a string of 128 KB: a large object of its own.
    const read = 65_536;
    const texts = ['a'.repeat(read), `${'b'.repeat(read - 1)}\r`, 'c'.repeat(read), 'd'.repeat(10)];
    const total = texts.reduce((n, t) => n + t.length, 0);
    const reader = new BatchReader(texts, total);
    const batches: string[] = [];
    for (let b = reader.next(); b; b = reader.next()) batches.push(b.text);
    expect(batches.join('')).toBe(texts.join(''));
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(read);
    // And the rows are those of the line read whole: what follows the `\r` replaces what was before.
    const buffer = new OutputBuffer(nothingToSpill);
    for (const text of texts) buffer.appendText('stdout', text);
    buffer.end();
    const [row] = rowsOf(buffer.snapshot());
    expect(row).toMatchObject({ kind: 'text', text: 'c'.repeat(MAX_LINE_CHARS) });
  });

  /** A chunk of output: many whole lines (some rewritten with `\r`, some empty), then maybe an open one. */
  const chunk = fc.record({
    stream: fc.constantFrom<Stream>('stdout', 'stderr'),
    lines: fc.integer({ min: 0, max: 2500 }),
    rewrite: fc.integer({ min: 0, max: 7 }),
    width: fc.constantFrom(0, 3, 60, 5000),
    open: fc.constantFrom('', 'open', 'pro\rgress', '\x1b[1mbold'),
    style: fc.constantFrom('plain', 'colour', 'crlf', 'junk'),
  });
  const styled: Record<string, (body: string) => string> = {
    plain: (body) => `${body}\n`,
    colour: (body) => `\x1b[31m${body}\x1b[0m\n`,
    crlf: (body) => `${body}\r\n`,
    junk: (body) => `\x07${body}\x1b[2K\x00\n`,
  };
  const textOf = (
    c: { lines: number; rewrite: number; width: number; open: string; style?: string },
    n: number,
  ) => {
    const line = styled[c.style ?? 'plain'] as (body: string) => string;
    let text = '';
    for (let i = 0; i < c.lines; i++) {
      const body = `${n}.${i}${'w'.repeat(c.width)}`;
      text +=
        c.rewrite && i % (c.rewrite + 1) === 0 ? `old\r${line(body)}` : i % 97 === 3 ? '\n' : line(body);
    }
    return text + c.open;
  };

  it('makes the same rows, and counts the same lines left out, as reading after every line', () => {
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 6 }), (chunks) => {
        const batched = new OutputBuffer(nothingToSpill);
        const lineByLine = new OutputBuffer(nothingToSpill);
        chunks.forEach((c, n) => {
          const text = textOf(c, n);
          batched.appendText(c.stream, text);
          // One line at a time, each read at once: nothing is ever skipped.
          for (const line of text.split(/(?<=\n)/)) {
            lineByLine.appendText(c.stream, line);
            lineByLine.snapshot();
          }
        });
        batched.end();
        lineByLine.end();
        const { spill: _a, ...got } = batched.snapshot();
        const { spill: _b, ...want } = lineByLine.snapshot();
        expect(got).toEqual(want);
      }),
      {
        numRuns: 60,
        // (found under load: an open line that grew to 4,000 characters took the rows past
        // KEPT_CHARS, and only the batched read left a row out)
        examples: [
          [
            [
              { stream: 'stdout', lines: 100, rewrite: 0, width: 5000, open: '', style: 'plain' },
              { stream: 'stdout', lines: 1, rewrite: 0, width: 0, open: 'open', style: 'plain' },
              { stream: 'stdout', lines: 1, rewrite: 0, width: 5000, open: '', style: 'plain' },
            ],
          ],
        ],
      },
    );
  });

  it('holds back the last lines when much text waits, with the same rows as reading after every line', () => {
    // Over a megabyte between two reads: the text is settled without a read, and its last lines
    // wait for the next settle (whether a read or not).
    const batched = new OutputBuffer(nothingToSpill);
    const lineByLine = new OutputBuffer(nothingToSpill);
    for (let n = 0; n < 61; n++) {
      // (The last chunk alone is over a megabyte: the rows at the end are made of held-back text.)
      const lines = n === 60 ? 16_000 : 700;
      const text = textOf({ lines, rewrite: n % 4, width: 80, open: n % 5 === 2 ? 'pro\rgress' : '' }, n);
      batched.appendText('stdout', text);
      if (n % 30 === 29) batched.snapshot();
      for (const line of text.split(/(?<=\n)/)) {
        lineByLine.appendText('stdout', line);
        if (line.endsWith('\n')) lineByLine.snapshot();
      }
    }
    batched.end();
    lineByLine.end();
    const { spill: _a, ...got } = batched.snapshot();
    const { spill: _b, ...want } = lineByLine.snapshot();
    expect(got.omitted).toBeGreaterThan(40_000);
    expect(got).toEqual(want);
  });

  it('cuts the tail by characters as well as lines, only where the rows are the text itself', () => {
    const line = `${'x'.repeat(5000)}\n`;
    const texts = [line.repeat(150), line.repeat(50)];
    const total = 200 * line.length;
    const bound = { lines: TAIL_ROWS, chars: KEPT_CHARS, lineChars: MAX_LINE_CHARS - 1 };
    // 101 rows of 3,999 characters are over KEPT_CHARS: the lines before them are left out whatever follows.
    const cut = tailCut(texts, total, { ...bound, plain: () => true });
    expect(KEPT_CHARS).toBe(400_000);
    expect(total - (cut + 1)).toBe(101 * line.length);
    // A text that may have escapes or `\r` in it makes rows shorter than its lines: only lines count.
    expect(tailCut(texts, total, { ...bound, plain: (i) => i === 1 })).toBe(-1);
    expect(tailCut(texts, total, { ...bound, lines: 30, plain: () => false })).toBe(
      total - 30 * line.length - 1,
    );
  });

  /** Rows and lines left out as reading after every line makes them. */
  const readLineByLine = (text: string, head = '') => {
    const buffer = new OutputBuffer(nothingToSpill);
    for (const line of (head + text).split(/(?<=\n)/)) {
      buffer.appendText('stdout', line);
      buffer.snapshot();
    }
    buffer.end();
    const { spill: _, ...output } = buffer.snapshot();
    return output;
  };
  /** The same text as 64 KB pipe reads, the rows read every 40 of them (ten times a second); and how many rows were made. */
  const readInBatches = (text: string, head = '') => {
    const addPiece = vi.spyOn(OutputBuffer.prototype as unknown as { addPiece: () => void }, 'addPiece');
    const buffer = new OutputBuffer(nothingToSpill);
    if (head) buffer.appendText('stdout', head);
    for (let at = 0, n = 1; at < text.length; at += 65_536, n++) {
      buffer.appendText('stdout', text.slice(at, at + 65_536));
      if (n % 40 === 0) buffer.snapshot();
    }
    buffer.end();
    const rowsMade = addPiece.mock.calls.length;
    addPiece.mockRestore();
    const { spill: _, ...output } = buffer.snapshot();
    return { output, rowsMade };
  };
  const numbered = (n: number, line: (i: number) => string) =>
    Array.from({ length: n }, (_, i) => `${line(i)}\n`).join('');

  it('makes rows only for the lines that can still be kept when long lines fill the tail', () => {
    // 2,000 numbered lines of 5,000 characters: rows are made for the lines that may be kept, not
    // for all of them, and they are the rows (the same lines) that reading after every line makes.
    const text = numbered(2000, (i) => `${i} `.padEnd(5000, 'y'));
    const { output, rowsMade } = readInBatches(text);
    expect(output).toEqual(readLineByLine(text));
    expect(output.omitted).toBeGreaterThan(1800);
    expect(rowsMade).toBeLessThan(1000);
    // With a head of empty rows, the tail can keep almost all of the characters.
    const head = '\n'.repeat(HEAD_ROWS);
    expect(readInBatches(text, head).output).toEqual(readLineByLine(text, head));
  });

  it('counts a line by its row, not its length, at the character bound', () => {
    // Lines much longer than their rows (rewritten with `\r`), and an emoji at the clamp (the row
    // keeps 3,999 characters): the same rows as reading after every line.
    const rewritten = numbered(1500, (i) => `${'a'.repeat(3000)}\r${i} b`);
    expect(readInBatches(rewritten).output).toEqual(readLineByLine(rewritten));
    const emoji = `short\n${numbered(400, (i) => `${i} `.padEnd(3999, 'e').concat('\u{1F600}', 'f'.repeat(1000)))}`;
    expect(readInBatches(emoji).output).toEqual(readLineByLine(emoji));
  });

  it('shows colour and drops other escapes in rows, and keeps them all in the spill file', () => {
    const buffer = new OutputBuffer(openSpill);
    let all = '';
    for (let i = 0; i < 3000; i++) all += `\x1b[32mok\x1b[0m ${i}\x07\x1b[2J\r\n`;
    buffer.appendText('stdout', all);
    buffer.end();
    const output = buffer.snapshot();
    expect(output.tail.at(-1)).toMatchObject({ text: '\x1b[32mok\x1b[0m 2999' });
    expect(readFileSync(output.spill?.path as string, 'utf8')).toBe(all);
  });

  it('writes all of the text to the spill file, in order, however it was batched', () => {
    const buffer = new OutputBuffer(openSpill);
    let all = '';
    for (let n = 0; n < 30; n++) {
      const text = textOf({ lines: 1000, rewrite: n % 3, width: 10, open: n % 2 ? 'x' : '' }, n);
      buffer.appendText(n % 4 === 0 ? 'stderr' : 'stdout', text);
      all += text;
      if (n % 7 === 0) buffer.snapshot();
    }
    buffer.end();
    expect(readFileSync(buffer.snapshot().spill?.path as string, 'utf8')).toBe(all);
  });
});
