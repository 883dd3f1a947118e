import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OpenLine } from '../../src/eval/output/openLine.js';
import { OutputSink, resolveArtifact } from '../../src/eval/output/outputSink.js';
import { applyBackspaces, dropLastChars, lastIndexOfChar, sanitize } from '../../src/eval/output/text.js';

function sinkOf(chunks: string[], limits = {}) {
  const sink = new OutputSink(limits);
  for (const c of chunks) sink.push(c);
  sink.end();
  return sink;
}

describe('sanitize', () => {
  it('keeps colour, drops other escapes, controls and NUL', () => {
    expect(sanitize('\x1b[31mred\x1b[0m \x1b[2Jclear\x1b]0;title\x07 nul\x00 bell\x07 bs\b tab\t')).toBe(
      '\x1b[31mred\x1b[0m clear nul bell bs tab\t',
    );
  });
});

describe('sanitize: every kind of escape sequence', () => {
  const cases: [string, string][] = [
    ['a\x1bcb', 'full reset'],
    ['a\x1b(0b', 'line-drawing charset'],
    ['a\x1b7\x1b8b', 'save and restore cursor'],
    ['a\x1b=b', 'keypad mode'],
    ['a\x1b#8b', 'screen alignment test'],
    ['a\x9b2Jb', 'an 8-bit CSI'],
    ['a\x1bP1$r\x1b\\b', 'a DCS string'],
    ['a\x1b]8;;http://x\x07\x1b]8;;\x07b', 'an OSC hyperlink'],
  ];
  for (const [input, what] of cases) {
    it(`drops ${what}`, () => expect(sanitize(input)).toBe('ab'));
  }

  it('drops a lone ESC at the end of the output', () => {
    const sink = new OutputSink();
    sink.push('a\x1b');
    sink.end();
    expect(sink.text).toBe('a');
  });

  it('drops an OSC that never ends instead of showing its payload', () => {
    const sink = new OutputSink();
    sink.push(`ok\x1b]0;${'t'.repeat(10_000)}`);
    sink.push('\nnext\n');
    sink.end();
    expect(sink.text).toBe('ok\nnext\n');
  });
});

describe('OutputSink', () => {
  it('takes a character off the line for each backspace, as Jupyter does, across reads', () => {
    // A spinner's reads; an emoji goes whole; a backspace at a line's start or after a \r takes nothing.
    const sink = sinkOf([
      'working |',
      '\b/',
      '\b-',
      '\b\\',
      '\b|',
      '\b\b\b\b\b\b\b\b\bdone 😀\b!\n\bnext',
      '\r\bx\n',
    ]);
    expect(sink.text).toBe('done !\nx\n');
    expect(applyBackspaces('\b\bab\bc\n\bd')).toEqual({ text: 'ac\nd', before: 2 });
    // Colour is no character: a backspace after it takes the character before it, the colour stays.
    const red = '\x1b[31mabc\x1b[0m';
    expect(sinkOf([`${red}\bX\n`, red, '\bX\n']).text).toBe('\x1b[31mab\x1b[0mX\n'.repeat(2));
  });

  it('keeps small output whole', () => {
    const sink = sinkOf(['a\n', 'b', 'c\n', 'open']);
    expect(sink.text).toBe('a\nbc\nopen');
    expect(sink.truncation).toBeUndefined();
  });

  it('collapses \\r progress lines to their last state, across chunks', () => {
    expect(sinkOf(['10%\r', '50%\r100%\n', 'done\r\n']).text).toBe('100%\ndone\n');
    expect(sinkOf(['a\r', '\nb']).text).toBe('a\nb');
  });

  it('handles an escape sequence split across chunks', () => {
    expect(sinkOf(['x\x1b[3', '1my\x1b[', '2Kz\n']).text).toBe('x\x1b[31myz\n');
  });

  it('keeps head and tail, writes everything to the artifact, and reports the truncation', () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${i}\n`);
    const sink = sinkOf(lines, { headChars: 100, tailChars: 100 });
    const t = sink.truncation;
    expect(t).toBeDefined();
    expect(sink.text.startsWith('line 0\nline 1\n')).toBe(true);
    expect(sink.text.endsWith('line 999\n')).toBe(true);
    expect(sink.text).toContain(
      `lines, ${t?.omittedChars} chars omitted; full output: ${t?.artifact} (${t?.artifactPath})]`,
    );
    expect(t?.totalLines).toBe(1000);
    expect(readFileSync(resolveArtifact(t?.artifact as string), 'utf8')).toBe(lines.join(''));
    // (The artifact's path, which the temp folder's name makes longer or shorter, aside.)
    expect(sink.text.length - (t?.artifactPath ?? '').length).toBeLessThan(330);
  });

  it('bounds memory for one enormous line without newlines', () => {
    const sink = new OutputSink({ headChars: 10, tailChars: 10, lineChars: 8 });
    for (let i = 0; i < 1000; i++) sink.push('abcdefgh');
    sink.end();
    expect(sink.truncation?.totalChars).toBe(8000);
    expect(readFileSync(sink.truncation?.artifactPath as string, 'utf8')).toBe('abcdefgh'.repeat(1000));
    expect(sink.text.length - (sink.truncation?.artifactPath?.length ?? 0)).toBeLessThan(150);
  });

  it('keeps no string of a megabyte for lines of a megabyte: each line stays in the pieces it came in', () => {
    // The built module in a process of its own, whose collector the test can run. A line joined
    // into one string is a large object (over 128 KB): the tail, a slice of it, kept it alive, and
    // making it cost some 3 ms a megabyte.
    const sink = new URL('../../dist/src/eval/output/outputSink.js', import.meta.url).href;
    const script = `
      const { OutputSink } = await import(${JSON.stringify(sink)});
      const v8 = await import('node:v8');
      const large = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'large_object_space').space_used_size;
      const line = 'z'.repeat(2 ** 20 - 1) + '\\n';
      const chunks = [];
      for (let i = 0; i < line.length; i += 65536) chunks.push(line.slice(i, i + 65536));
      const s = new OutputSink();
      globalThis.gc();
      const before = large();
      for (let n = 0; n < 8; n++) for (const chunk of chunks) s.push(chunk);
      globalThis.gc();
      const kept = large() - before;
      s.end();
      process.stdout.write(JSON.stringify({ kept, total: s.truncation.totalChars, text: s.text.length }));
    `;
    const child = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(child.stderr).toBe('');
    const { kept, total, text } = JSON.parse(child.stdout);
    expect(total).toBe(8 * 2 ** 20);
    expect(text).toBeLessThan(60_000);
    expect(kept).toBeLessThan(128 * 1024);
  });

  it('starts an output of its own on a new line only where a line is open', () => {
    const textAfter = (before: string) => {
      const sink = new OutputSink();
      sink.push(before);
      sink.pushBlock('5\n');
      sink.end();
      return sink.text;
    };
    expect(textAfter('partial')).toBe('partial\n5\n');
    expect(textAfter('done\n')).toBe('done\n5\n');
    expect(textAfter('50%\r')).toBe('50%\n5\n');
    // Nothing on the line: a `\r` alone, or an escape sequence left unfinished (dropped).
    expect(textAfter('\r')).toBe('5\n');
    expect(textAfter('\x1b[3')).toBe('5\n');
    expect(textAfter('ok\n\x1b')).toBe('ok\n5\n');
  });

  it('a line longer than the tail goes to the head while it fits there (a head larger than the tail)', () => {
    const sink = sinkOf([`${'x'.repeat(50)}\n`, ...Array.from({ length: 20 }, () => 'yyyyy\n')], {
      headChars: 100,
      tailChars: 10,
      lineChars: 1000,
    });
    // The head takes the long line and 8 short ones (99 characters); the tail keeps the last one.
    expect(
      sink.text.startsWith(`${'x'.repeat(50)}\n${'yyyyy\n'.repeat(8)}… [11 lines, 66 chars omitted; `),
    ).toBe(true);
    expect(sink.text.endsWith(']\nyyyyy\n')).toBe(true);
    // One line left out is "1 line".
    const one = sinkOf(['aaaa\n', 'bbbb\n', 'cccc\n'], { headChars: 5, tailChars: 5, lineChars: 1000 });
    expect(one.text).toMatch(/^aaaa\n… \[1 line, 5 chars omitted; [^\]]*\]\ncccc\n$/);
    expect(sink.truncation).toMatchObject({
      totalChars: 171,
      totalLines: 21,
      omittedChars: 66,
      omittedLines: 11,
    });
  });

  it("keeps a long line's end before the short lines after it, whatever the chunks", () => {
    // 30,000 A and 30,000 B on two lines, three short lines: the tail (30,000) shows the end of
    // the B line and the short lines; it used to hold the short lines only (21 of 30,000).
    const text = `${'A'.repeat(30_000)}END1\n${'B'.repeat(30_000)}END2\n${'line\n'.repeat(3)}`;
    const anonymous = (t: string) => t.replace(/artifact:\/\/\S+ \([^)]*\)/, 'ARTIFACT');
    const results = [[text], text.match(/[\s\S]{1,997}/g) as string[], text.split(/(?<=\n)/)].map((chunks) =>
      sinkOf(chunks),
    );
    const [whole] = results as [OutputSink];
    for (const other of results) expect(anonymous(other.text)).toBe(anonymous(whole.text));
    expect(whole.text).toMatch(/B{1000}END2\nline\nline\nline\n$/);
    expect(whole.text.length).toBeLessThan(20_000 + 30_000 + 300);
    // What is shown and what is omitted add up to all of it (the head, cut in a line, ends in a
    // newline of the marker's).
    const shown = whole.text.length - (whole.text.match(/\n… \[[^\]]*\]\n/)?.[0].length ?? 0);
    expect(shown + (whole.truncation?.omittedChars ?? 0)).toBe(text.length);
    expect(whole.truncation).toMatchObject({ totalLines: 5, omittedLines: 1 }); // (the rest of A's)
    // Short lines still go whole: no line is cut to fit.
    const short = sinkOf([`${'s'.repeat(40)}\n`.repeat(2000)]);
    expect(
      short.text
        .split('\n')
        .filter((l) => l && !l.startsWith('…'))
        .every((l) => l.length === 40),
    ).toBe(true);
  });

  it('never cuts an emoji in half, wherever the head, the tail or a long line ends', () => {
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('😀', 'a', 'é', '\n', '👩‍💻'), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 2, max: 30 }),
        (units, headChars, tailChars, lineChars) => {
          const sink = sinkOf([units.join('')], { headChars, tailChars, lineChars });
          expect(sink.text).not.toMatch(lone);
        },
      ),
      { numRuns: 300 },
    );
    // The helper's case: 100,000 emoji on one line.
    expect(sinkOf(['😀'.repeat(100_000), '\n']).text).not.toMatch(lone);
  });

  it('never cuts a colour sequence in two, wherever the head, the tail, a long line or a chunk ends', () => {
    const broken = (text: string) =>
      text
        .split('\n')
        .filter((line) => !line.startsWith('… ['))
        .join('\n')
        .replace(/\x1b\[[0-9;]*m/g, '')
        .match(/[\x1b[\]0-9;m]/);
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('\x1b[31m', '\x1b[0m', 'a', 'é', '😀', '\n'), {
          minLength: 1,
          maxLength: 300,
        }),
        fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 20 }),
        // (limits that hold a colour sequence whole: the real ones are thousands of characters)
        fc.integer({ min: 8, max: 40 }),
        fc.integer({ min: 8, max: 40 }),
        fc.integer({ min: 8, max: 30 }),
        (units, sizes, headChars, tailChars, lineChars) => {
          const text = units.join('');
          const chunks: string[] = [];
          for (let at = 0, i = 0; at < text.length; at += sizes[i++ % sizes.length] as number)
            chunks.push(text.slice(at, at + (sizes[i % sizes.length] as number)));
          const sink = sinkOf(chunks, { headChars, tailChars, lineChars });
          expect(broken(sink.text), JSON.stringify(sink.text)).toBeNull();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rejects artifact ids that could escape the directory', () => {
    expect(() => resolveArtifact('artifact://../../etc/passwd')).toThrow(/not an artifact id/);
  });
});

describe('OutputSink: any chunking, the same result', () => {
  // Lines of all lengths (some longer than lineChars); or short lines with \r rewrites (a line
  // rewritten with \r past lineChars is cut wherever the chunks happened to put its end).
  const piece = (cr: boolean) =>
    fc.oneof(
      fc.string({ unit: fc.constantFrom('a', 'b', ' ', 'é'), maxLength: 30 }).map((s) => `${s}\n`),
      fc.string({ unit: fc.constantFrom('x'), minLength: 1, maxLength: 90 }),
      fc.constantFrom('\n', ...(cr ? ['\r', 'progress 1\rprogress 2\n', '\r\n'] : [])),
    );
  const output = fc.boolean().chain((cr) =>
    fc.record({
      cr: fc.constant(cr),
      text: fc.array(piece(cr), { maxLength: 120 }).map((parts) => parts.join('')),
      cuts: fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 8 }),
    }),
  );

  const feed = (text: string, cuts: number[], cr: boolean) => {
    const sink = new OutputSink({ headChars: 60, tailChars: 80, lineChars: cr ? 1 << 20 : 50 });
    for (let at = 0, i = 0; at < text.length; i++) {
      const size = cuts[i % cuts.length] as number;
      sink.push(text.slice(at, at + size));
      at += size;
    }
    sink.end();
    const { artifact: _a, artifactPath, ...truncation } = sink.truncation ?? { artifactPath: undefined };
    const saved = artifactPath ? readFileSync(artifactPath, 'utf8') : undefined;
    const anonymous = (text: string) => text.replace(/artifact:\/\/[\w-]+ \([^)]*\)/, 'artifact://ID (PATH)');
    return {
      text: anonymous(sink.text),
      truncation:
        'fullOutput' in truncation ? { ...truncation, fullOutput: anonymous(truncation.fullOutput) } : {},
      saved,
    };
  };

  it('whole blocks of lines give what one character at a time gives, and the artifact has it all', () => {
    fc.assert(
      fc.property(output, ({ text, cuts, cr }) => {
        const reference = feed(text, [1], cr);
        expect(feed(text, cuts, cr)).toEqual(reference);
        if (reference.saved !== undefined)
          expect(feed(text, [text.length || 1], cr).saved).toBe(reference.saved);
      }),
      { numRuns: 400 },
    );
  });
});

describe('lastIndexOfChar', () => {
  it('finds what lastIndexOf finds, for any text, character and place to look before', () => {
    const unit = fc.constantFrom('a', 'a'.repeat(300), 'a'.repeat(5000), '\n', '\r', '\x1b', 'é', '😀');
    fc.assert(
      fc.property(fc.string({ unit }), fc.constantFrom('\n', '\r', '\x1b'), fc.nat(), (text, char, n) => {
        const before = n % (text.length + 2);
        expect(lastIndexOfChar(text, char, before)).toBe(
          before > 0 ? text.lastIndexOf(char, before - 1) : -1,
        );
        expect(lastIndexOfChar(text, char)).toBe(text.lastIndexOf(char));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('OpenLine.dropLast', () => {
  it('takes off what dropLastChars takes off the whole line, joining only its end', () => {
    const unit = fc.constantFrom('a', 'a'.repeat(3000), '\x1b[31m', '\x1b[0m', '😀', 'é');
    const piece = fc.string({ unit, maxLength: 8 });
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), fc.integer({ min: 1, max: 5000 }), (pieces, n) => {
        const line = new OpenLine();
        for (const p of pieces) line.append(p);
        const expected = dropLastChars(line.toString(), n);
        line.dropLast(n);
        expect(line.toString()).toBe(expected);
        expect(line.length).toBe(expected.length);
      }),
      { numRuns: 1000 },
    );
  });
});
