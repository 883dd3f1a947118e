import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { cellNeedsMoreInput } from '../../src/eval/completeness.js';
import { renderBundle } from '../../src/eval/output/display.js';
import { cellLanguage, splitCells } from '../../src/eval/script.js';

const require = createRequire(import.meta.url);
const { transformCell } = require('../../src/js/transform.cjs') as {
  transformCell: (code: string) => { code: string; lineOffset: number; async: boolean; names: string[] };
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

describe('cellNeedsMoreInput for JavaScript', () => {
  const more = (code: string) => cellNeedsMoreInput(code, 'js');
  it('waits while a bracket, template literal or block comment is open', () => {
    expect(more('function f() {')).toBe(true);
    expect(more('const a = [1,')).toBe(true);
    expect(more('const s = `line')).toBe(true);
    expect(more('/* note')).toBe(true);
    expect(more('%%js')).toBe(true);
    expect(cellNeedsMoreInput('%%js', 'py')).toBe(true);
  });
  it('runs complete code, code with errors in the middle, and anything ending in an empty line', () => {
    expect(more('const a = 1')).toBe(false);
    expect(more('await fetchIt()')).toBe(false);
    expect(more('import x from "y"')).toBe(false);
    expect(more('let = = 1;\nok()')).toBe(false);
    expect(more('%%js\nfunction f() {\n  return 1\n}')).toBe(false);
    expect(cellNeedsMoreInput('%%js\nif (x) {', 'py')).toBe(true);
    // Blank lines inside open code do not end it; read line by line, a %%js body ends with one.
    expect(more('function f() {\n  const a = 1\n')).toBe(true);
    expect(cellNeedsMoreInput('%%js\nconst a = 1', 'py', { lines: true })).toBe(true);
    expect(cellNeedsMoreInput('%%js\nconst a = 1\n', 'py', { lines: true })).toBe(false);
    expect(cellNeedsMoreInput('%%js\nf(\n', 'py', { lines: true })).toBe(true);
    // Two empty lines run whatever is open (a typo must not hold the cell forever).
    expect(more('foo(\n\n')).toBe(false);
    expect(more('const x')).toBe(true);
    expect(more('const x\n\n')).toBe(false);
    // Read line by line, an empty line ends a Python cell even inside brackets, as before.
    expect(cellNeedsMoreInput('print(1\n', 'py', { lines: true })).toBe(false);
    expect(cellNeedsMoreInput('%%bash\necho \\(\n', 'py', { lines: true })).toBe(false);
    expect(cellNeedsMoreInput('print(1\n', 'py')).toBe(true);
  });
});

describe('the js cell transform', () => {
  it('turns top-level declarations into assignments to global vars, keeping lines', () => {
    const t = transformCell('const a = 1, {b} = o;\nlet c;\nclass K {}\nfunction f() {}\na');
    expect(t.async).toBe(false);
    expect(t.names.sort()).toEqual(['K', 'a', 'b', 'c']);
    expect(t.code).toBe(
      'void ((a = 1), ({b} = o));\nvoid ((c = undefined));\nvoid (K = class K {});\nfunction f() {}\na\n;var a, b, c, K;',
    );
  });
  it('wraps a cell with top-level await, returns its last expression, publishes functions', () => {
    const t = transformCell('const r = await g();\nfunction h() {}\nr + 1');
    expect(t).toMatchObject({ async: true, lineOffset: -1 });
    expect(t.code.split('\n')).toEqual([
      'var r;(async (__omp_global__) => { __omp_global__.h = h; ',
      'void ((r = await g()));',
      'function h() {}',
      'return { value: (r + 1) };',
      '})(globalThis)',
    ]);
  });
  it('leaves await inside functions alone, rewrites import() everywhere and static imports', () => {
    expect(transformCell('async function f() { await 1 }').async).toBe(false);
    expect(transformCell('const m = () => import("x")').code).toContain('__omp_import__("x")');
    const t = transformCell('import d, { a as b } from "m"\nd');
    expect(t.async).toBe(true);
    expect(t.code).toContain(
      '__omp_module_1__ = await __omp_import__("m"); d = __omp_module_1__.default; b = __omp_module_1__["a"];',
    );
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
