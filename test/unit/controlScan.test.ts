import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasControl, maybeControlAt, SCAN_MIN_CHARS } from '../../src/eval/output/controlScan.js';
import { isPlainText, sanitize } from '../../src/eval/output/text.js';

const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/;
const CONTROL_OR_CR = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const indexOf = (pattern: RegExp, text: string) => pattern.exec(text)?.index ?? -1;

/** Every character below U+0100 and a few beyond, some with a control character's low byte. */
const unit = fc.oneof(
  fc.integer({ min: 0, max: 0xff }).map((code) => String.fromCharCode(code)),
  fc.constantFrom('\u4e1b', '\u011b', '\u0109', '😀', 'é', '\u2028'),
  fc.constantFrom('a'.repeat(40), 'line of text\n', 'b'.repeat(5000)),
);

describe('the control-character scanner (WebAssembly)', () => {
  it('is the module controlScan.wat compiles to', () => {
    // (Debian's wabt, which .ci/run installs.)
    const wat = new URL('../../src/eval/output/controlScan.wat', import.meta.url).pathname;
    const compiled = execFileSync('wat2wasm', [wat, '--output=-']).toString('base64');
    const source = readFileSync(new URL('../../src/eval/output/controlScan.ts', import.meta.url), 'utf8');
    expect(source).toContain(`'${compiled}'`);
  });

  it('finds every control character in Latin-1 text where the regular expression does', () => {
    for (let code = 0; code < 0x100; code++) {
      const char = String.fromCharCode(code);
      // at each place in a block of sixteen, in the tail after the blocks, and alone
      for (const before of [0, 5, 15, 16, 31, 40, 47]) {
        const text = `${'x'.repeat(before)}${char}${'y'.repeat(7)}`;
        expect(maybeControlAt(text, true)).toBe(indexOf(CONTROL, text));
        expect(maybeControlAt(text, false)).toBe(indexOf(CONTROL_OR_CR, text));
      }
    }
  });

  it('never misses one, in any text, and answers as the regular expression', () => {
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 60 }), fc.boolean(), (text, crOk) => {
        const pattern = crOk ? CONTROL : CONTROL_OR_CR;
        const want = indexOf(pattern, text);
        const at = maybeControlAt(text, crOk) as number;
        // ("maybe" first, where a character beyond Latin-1 has a control character's low byte)
        if (want === -1) expect(at === -1 || text.charCodeAt(at) > 0xff).toBe(true);
        else expect(at).toBeGreaterThanOrEqual(0);
        expect(at).toBeLessThanOrEqual(want === -1 ? Number.MAX_SAFE_INTEGER : want);
        expect(hasControl(text, pattern, crOk)).toBe(want !== -1);
      }),
      { numRuns: 500 },
    );
  });

  it('reads a text longer than its memory in parts, a control character at any place', () => {
    for (const at of [0, 65_535, 65_536, 65_537, 131_071, 150_000]) {
      const text = `${'z'.repeat(at)}\x1b[2K${'z'.repeat(150_010 - at)}`;
      expect(maybeControlAt(text, true)).toBe(at);
      expect(hasControl(text, CONTROL, true)).toBe(true);
      expect(isPlainText(text)).toBe(false);
      expect(sanitize(text)).toBe('z'.repeat(150_010));
    }
    const long = `${'z'.repeat(200_000)}\r`;
    expect(maybeControlAt(long, true)).toBe(-1);
    expect(maybeControlAt(long, false)).toBe(200_000);
    expect(isPlainText(long)).toBe(false);
    expect(isPlainText(long.slice(0, -1))).toBe(true);
  });

  it('leaves short texts to the regular expression, and long ones answer the same', () => {
    expect(SCAN_MIN_CHARS).toBeGreaterThan(0);
    const cases = [
      '\u4e1b'.repeat(SCAN_MIN_CHARS),
      `${'\u4e1b'.repeat(SCAN_MIN_CHARS)}\x07`,
      'é'.repeat(999),
    ];
    for (const text of cases) {
      expect(hasControl(text, CONTROL, true)).toBe(CONTROL.test(text));
      expect(sanitize(text)).toBe(text.replace(/\x07/g, ''));
    }
  });
});
