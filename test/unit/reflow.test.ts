import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { balance, reflow, truncate } from '../../src/tui/markdown/reflow.js';

const ESC = '\u001b';
const bold = (s: string) => `${ESC}[1m${s}${ESC}[22m`;
const blue = (s: string) => `${ESC}[34m${s}${ESC}[39m`;

describe('reflow', () => {
  it('wraps words greedily at the width; runs of spaces are one space; \\n is a hard break', () => {
    expect(reflow('aa bb  cc\tdd ee', 8)).toEqual(['aa bb cc', 'dd ee']);
    expect(reflow('one\ntwo three', 20)).toEqual(['one', 'two three']);
    expect(reflow('one\n\ntwo', 20)).toEqual(['one', '', 'two']);
    expect(reflow('', 20)).toEqual([]);
  });

  it('cuts a word wider than the line, starting where it would have begun', () => {
    expect(reflow('ab cdefghijklmn', 6)).toEqual(['ab cde', 'fghijk', 'lmn']);
    expect(reflow('abcdefgh', 4)).toEqual(['abcd', 'efgh']);
  });

  it('measures wide characters by their columns, and escape codes as nothing', () => {
    expect(reflow('漢字漢字漢字', 6)).toEqual(['漢字漢', '字漢字']);
    const styled = reflow(`${bold('aaaa')} ${bold('bbbb')}`, 9);
    expect(styled.map((l) => stripVTControlCharacters(l))).toEqual(['aaaa bbbb']);
  });

  it('closes on each line the styles it leaves open, and opens them again on the next', () => {
    const lines = reflow(blue(`x ${bold('one two three')} y`), 9);
    expect(lines.map((l) => stripVTControlCharacters(l))).toEqual(['x one two', 'three y']);
    expect(lines[0]).toBe(`${ESC}[34mx ${ESC}[1mone two${ESC}[39m${ESC}[22m`);
    expect(lines[1]).toBe(`${ESC}[34m${ESC}[1mthree${ESC}[22m y${ESC}[39m`);
  });
});

describe('balance and truncate', () => {
  it('leaves empty lines empty, and a reset ends every style', () => {
    expect(balance([`${ESC}[3ma`, '', 'b', `${ESC}[0mc`])).toEqual([
      `${ESC}[3ma${ESC}[23m`,
      '',
      `${ESC}[3mb${ESC}[23m`,
      `${ESC}[3m${ESC}[0mc`,
    ]);
  });

  it('cuts to the width with an ellipsis, only when the text is wider', () => {
    expect(truncate('abcdef', 6)).toBe('abcdef');
    expect(truncate('abcdefg', 6)).toBe('abcde…');
    expect(truncate('漢字漢字', 5)).toBe('漢字…');
  });
});
