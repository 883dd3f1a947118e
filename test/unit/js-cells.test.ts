import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { cellCompleteness, localCompleteness, needsMoreLines } from '../../src/eval/completeness.js';
import type { Language } from '../../src/eval/language.js';

/** Whether a typed cell needs more lines, by the local rules (the js kernel's own file). */
const cellNeedsMoreInput = async (text: string, fallback: Language, opts: { lines?: boolean } = {}) =>
  needsMoreLines(await cellCompleteness(text, fallback, async (c, l) => localCompleteness(c, l), opts));

import { renderBundle } from '../../src/eval/output/display.js';
import { cellLanguage, splitCells } from '../../src/eval/script.js';

const require = createRequire(import.meta.url);
interface PositionMap {
  genStarts: number[];
}
const { transformCell } = require('../../src/js/transform.cjs') as {
  transformCell: (code: string) => {
    code: string;
    map: PositionMap;
    async: boolean;
    lexical: string[];
    vars: string[];
  };
};
const { originalPosition } = require('../../src/js/positions.cjs') as {
  originalPosition: (
    map: PositionMap,
    source: string,
    line: number,
    column: number,
  ) => { line: number; column: number } | null;
};

describe('cellLanguage', () => {
  it('reads %%js / %%py first lines and blanks them, keeping offsets', () => {
    expect(cellLanguage('%%js\nconst a = 1', 'py')).toEqual({ language: 'js', code: '    \nconst a = 1' });
    expect(cellLanguage('%%python  \nx', 'js')).toEqual({ language: 'py', code: '          \nx' });
    expect(cellLanguage('%%javascript', 'py')).toEqual({ language: 'js', code: '            ' });
    expect(cellLanguage('1 + 1', 'js')).toEqual({ language: 'js', code: '1 + 1' });
    // Other cell magics are the kernel's.
    expect(cellLanguage('%%bash\nls', 'py')).toEqual({ language: 'py', code: '%%bash\nls' });
  });
});

describe('splitCells for JavaScript', () => {
  it('splits on // %% lines and ignores Python markers', () => {
    const cells = splitCells('const a = 1\n// %% second\n# %% not a marker\na + 1\n', 'js');
    expect(cells).toEqual([
      { code: 'const a = 1', line: 1 },
      { code: '# %% not a marker\na + 1', title: 'second', line: 3 },
    ]);
  });
});

describe('completeness of JavaScript cells (the local rules, shared with the js kernel)', async () => {
  const more = (code: string) => cellNeedsMoreInput(code, 'js');
  it('waits while a bracket, template literal or block comment is open', async () => {
    expect(await more('function f() {')).toBe(true);
    expect(await more('const a = [1,')).toBe(true);
    expect(await more('const s = `line')).toBe(true);
    expect(await more('/* note')).toBe(true);
    expect(await more('%%js')).toBe(true);
    expect(await cellNeedsMoreInput('%%js', 'py')).toBe(true);
  });
  it('runs complete code, code with errors in the middle, and anything ending in an empty line', async () => {
    expect(await more('const a = 1')).toBe(false);
    expect(await more('await fetchIt()')).toBe(false);
    expect(await more('import x from "y"')).toBe(false);
    expect(await more('let = = 1;\nok()')).toBe(false);
    // A %%js body, typed or read line by line, goes on until an empty line (as %%bash in IPython).
    expect(await more('%%js\nfunction f() {\n  return 1\n}')).toBe(true);
    expect(await more('%%js\nfunction f() {\n  return 1\n}\n')).toBe(false);
    expect(await cellNeedsMoreInput('%%js\nconst a = [1, 2].map((x) => x * 2)', 'py')).toBe(true);
    expect(await cellNeedsMoreInput('%%js\nconst a = [1, 2].map((x) => x * 2)\n', 'py')).toBe(false);
    expect(await cellNeedsMoreInput('%%js\nif (x) {', 'py')).toBe(true);
    expect(await cellNeedsMoreInput('%%js\nif (x) {\n', 'py')).toBe(true);
    // Its next line is indented as the js kernel says: a level more after an opener.
    const ask = async (c: string, l: Language) => localCompleteness(c, l);
    expect((await cellCompleteness('%%js\nif (x) {', 'py', ask)).indent).toBe('  ');
    expect((await cellCompleteness('%%js\n  a = 1', 'py', ask)).indent).toBe('  ');
    expect(await cellNeedsMoreInput('%%py\nx = 1', 'js')).toBe(true);
    expect(await cellNeedsMoreInput('%%py\nx = 1\n', 'js')).toBe(false);
    // Blank lines inside open code do not end it; read line by line, a %%js body ends with one.
    expect(await more('function f() {\n  const a = 1\n')).toBe(true);
    expect(await cellNeedsMoreInput('%%js\nconst a = 1', 'py', { lines: true })).toBe(true);
    expect(await cellNeedsMoreInput('%%js\nconst a = 1\n', 'py', { lines: true })).toBe(false);
    expect(await cellNeedsMoreInput('%%js\nf(\n', 'py', { lines: true })).toBe(true);
    // Two empty lines run whatever is open (a typo must not hold the cell forever).
    expect(await more('foo(\n\n')).toBe(false);
    expect(await more('const x')).toBe(true);
    expect(await more('const x\n\n')).toBe(false);
    // Read line by line, an empty line ends a Python cell even inside brackets, as before.
    expect(await cellNeedsMoreInput('print(1\n', 'py', { lines: true })).toBe(false);
    expect(await cellNeedsMoreInput('%%bash\necho \\(\n', 'py', { lines: true })).toBe(false);
    expect(await cellNeedsMoreInput('print(1\n', 'py')).toBe(true);
  });
});

describe('the js cell transform', () => {
  it('arms top-level let/const/class bindings and assigns them, keeping lines and the completion value', () => {
    const t = transformCell('const a = 1, {b} = o;\nlet c;\nclass K {}\nfunction f() {}\nvar v = 2;\na');
    expect(t.async).toBe(false);
    expect(t.lexical).toEqual(['a', 'b', 'c', 'K']);
    expect(t.vars).toEqual(['v']);
    expect(t.code.split('\n')).toEqual([
      'var __omp_void__ = void (__omp_bind__.const(["a"]), a = 1, __omp_bind__.const(["b"]), {b} = o);',
      'var __omp_void__ = void (__omp_bind__.let(["c"]), c = undefined);',
      'var __omp_void__ = void (__omp_bind__.let("K"), K = class K {});',
      'function f() {}',
      'var __omp_void__ = void (v = 2);',
      'a',
    ]);
  });

  it('wraps a cell with top-level await, returns its last expression, publishes functions (in blocks too)', () => {
    const t = transformCell('const r = await g();\nfunction h() {}\nif (r) { function bar() {} }\nr + 1');
    expect(t).toMatchObject({ async: true, lexical: ['r'] });
    expect(t.code.split('\n')).toEqual([
      '(async () => { __omp_bind__.fn("h", h); ',
      'void (__omp_bind__.const(["r"]), r = await g());',
      'function h() {}',
      'if (r) { function bar() {} __omp_bind__.fn("bar", bar); }',
      'return { value: (r + 1) };',
      '})()',
    ]);
    // Strict mode keeps block functions in their block.
    expect(transformCell('"use strict"; await 1; { function z() {} }').code).not.toContain('"z"');
  });

  it('leaves await inside functions alone, rewrites import() everywhere and static imports', () => {
    expect(transformCell('async function f() { await 1 }').async).toBe(false);
    expect(transformCell('const m = () => import("x")').code).toContain('__omp_import__("x")');
    const t = transformCell('import d, { a as b } from "m"\nd');
    expect(t.async).toBe(true);
    expect(t.lexical).toEqual(['d', 'b']);
    expect(t.code).toContain(
      'var __omp_module_1__ = await __omp_import__("m"); __omp_bind__.const(["d","b"]), d = __omp_module_1__.default, b = __omp_module_1__["a"];',
    );
  });

  it('makes var in blocks and loops of an async cell global', () => {
    const t = transformCell('var x, y = 2; for (var i = 0; i < 2; i++) await null; for (var [p] of q) {}');
    expect(t.vars).toEqual(['x', 'y', 'i', 'p']);
    expect(t.code).toContain('void (0, y = 2); for (i = 0; i < 2; i++) await null; for ([p] of q) {}');
  });

  it('maps positions of the transformed code back to the cell as typed', () => {
    const source = 'const a = 1; null.x\n  await a; b.c';
    const t = transformCell(source);
    const lines = t.code.split('\n');
    const at = (needle: string) => {
      const line = lines.findIndex((l) => l.includes(needle));
      return originalPosition(t.map, source, line + 1, (lines[line] as string).indexOf(needle) + 1);
    };
    expect(at('null.x')).toEqual({ line: 1, column: 14 });
    expect(at('b.c')).toEqual({ line: 2, column: 12 });
    // Inserted text maps to what it replaced; the wrapper's own lines to nothing.
    expect(at('__omp_bind__')).toEqual({ line: 1, column: 1 });
    expect(originalPosition(t.map, source, 1, 3)).toBeNull();
    expect(originalPosition(t.map, source, lines.length, 2)).toBeNull();
    // An object literal cell is parenthesised: positions shift back by one.
    const obj = transformCell('{a: b.c}');
    expect(obj.code).toBe('({a: b.c})');
    expect(originalPosition(obj.map, '{a: b.c}', 1, 6)).toEqual({ line: 1, column: 5 });
  });

  it('rejects export statements and reports syntax errors', () => {
    expect(() => transformCell('export const a = 1')).toThrow(/export statements are not supported/);
    expect(() => transformCell('let = = 1')).toThrow(SyntaxError);
  });
});

describe('renderBundle with terminal colours', () => {
  it('offers the coloured text beside the plain one', () => {
    const out = renderBundle({ 'text/plain': '42', 'application/x-omp-ansi': '\u001b[33m42\u001b[39m' });
    expect(out.text).toBe('42');
    expect(out.ansi).toBe('\u001b[33m42\u001b[39m');
  });
});
