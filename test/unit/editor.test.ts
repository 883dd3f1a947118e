import { describe, expect, it } from 'vitest';
import {
  backspace,
  deleteForward,
  deleteWord,
  deleteWordForward,
  type EditorState,
  editorText,
  emptyEditor,
  fromText,
  home,
  insert,
  killToStart,
  move,
  newline,
  transpose,
  type,
  wordLeft,
  wordRight,
} from '../../src/tui/keys/editor.js';

describe('editor', () => {
  it('inserts text and multi-line pastes at the cursor', () => {
    let s = insert(emptyEditor(), 'ac');
    s = move(s, 0, -1);
    s = insert(s, 'b');
    expect(editorText(s)).toBe('abc');
    s = insert(s, 'X\nY\nZ');
    expect(editorText(s)).toBe('abX\nY\nZc');
    expect(s).toMatchObject({ row: 2, col: 1 });
  });

  it('indents a new line after a colon and dedents with backspace', () => {
    let s = newline(insert(emptyEditor(), 'for i in x:'));
    expect(s.lines).toEqual(['for i in x:', '    ']);
    s = backspace(s);
    expect(s.lines).toEqual(['for i in x:', '']);
    s = backspace(s);
    expect(s.lines).toEqual(['for i in x:']);
  });

  it('moves across lines and keeps the column within the line', () => {
    let s = fromText('long line\nab');
    s = move(s, -1, 0);
    expect(s).toMatchObject({ row: 0, col: 2 });
    s = move(fromText('ab\ncd'), 0, 1);
    expect(s).toMatchObject({ row: 1, col: 2 });
    s = move({ ...fromText('ab\ncd'), row: 1, col: 0 }, 0, -1);
    expect(s).toMatchObject({ row: 0, col: 2 });
  });

  it('takes a closing bracket typed on an indented empty line back a level, in JavaScript only', () => {
    const js = fromText('function f() {\n  return 1\n  ');
    expect(type(js, '}', 'js').lines).toEqual(['function f() {', '  return 1', '}']);
    expect(type(fromText('%%js\nif (x) {\n    '), '}', 'py').lines.at(-1)).toBe('  }');
    // Python, text after the cursor, other characters: typed as they are.
    expect(type(fromText('f(\n    '), ')', 'py').lines.at(-1)).toBe('    )');
    expect(type(fromText('[\n  a'), ']', 'js').lines.at(-1)).toBe('  a]');
    expect(type(js, 'x', 'js').lines.at(-1)).toBe('  x');
  });

  it('kills to the line start and deletes words', () => {
    expect(editorText(killToStart(fromText('abc def')))).toBe('');
    expect(editorText(deleteWord(fromText('print(value')))).toBe('print(');
  });
});

describe('editing by grapheme', () => {
  const typed = (...steps: ((s: EditorState) => EditorState)[]) =>
    steps.reduce((s, step) => step(s), emptyEditor());
  const type = (text: string) => (s: EditorState) => insert(s, text);

  it('Backspace after an emoji removes the whole emoji, never half of it', () => {
    const s = typed(type('q = "a😀'), backspace, type('"'));
    expect(editorText(s)).toBe('q = "a"');
    expect(editorText(s)).not.toMatch(/[\uD800-\uDFFF]/);
  });

  const clusters = {
    'a ZWJ family': '👨‍👩‍👧',
    'a flag': '🇫🇷',
    'a letter and a combining accent': 'e\u0301',
    'a wide CJK character': '漢',
    'a skin tone': '👍🏽',
  };
  for (const [what, cluster] of Object.entries(clusters)) {
    it(`moves over and deletes ${what} as one character`, () => {
      const s = typed(type(`x${cluster}y`));
      expect(editorText(backspace(move(s, 0, -1)))).toBe('xy');
      expect(move(move(s, 0, -1), 0, -1).col).toBe(1);
      expect(editorText(deleteForward(move(move(s, 0, -1), 0, -1)))).toBe('xy');
      // Ctrl-T swaps it whole with its neighbour, before it (mid-line) and after it (at the end)
      expect(editorText(transpose(move(s, 0, -1)))).toBe(`xy${cluster}`);
      expect(editorText(transpose(s))).toBe(`xy${cluster}`);
      expect(editorText(transpose(move(move(s, 0, -1), 0, -1)))).toBe(`${cluster}xy`);
    });
  }

  it('Delete and Ctrl-D in mid-line delete forward; at a line end they join the next line', () => {
    const s = move(move(fromText('abc'), 0, -1), 0, -1);
    expect(editorText(deleteForward(s))).toBe('ac');
    const joined = deleteForward({ ...fromText('ab\ncd'), row: 0, col: 2 });
    expect(joined).toMatchObject({ lines: ['abcd'], row: 0, col: 2 });
  });

  it('moves and deletes by word (Alt-B/F, Ctrl-Left/Right, Alt-Backspace, Ctrl-W, Alt-D)', () => {
    // As IPython's editor (editor-words-ipython.test.ts has it as the oracle): punctuation is a
    // word of its own, `_` belongs to a name, and the keys go over line breaks.
    const s = fromText('total = compute(alpha, beta)');
    expect(wordLeft(s).col).toBe('total = compute(alpha, beta'.length);
    expect(wordLeft(wordLeft(s)).col).toBe('total = compute(alpha, '.length);
    const atStart = home(s);
    expect(wordRight(atStart).col).toBe('total'.length);
    expect(wordRight(wordRight(atStart)).col).toBe('total ='.length);
    expect(editorText(deleteWord(s))).toBe('total = compute(alpha, beta');
    expect(editorText(deleteWordForward(atStart))).toBe(' = compute(alpha, beta)');
    const call = fromText('foo.bar_baz(qux)');
    expect(wordLeft({ ...call, col: 'foo.bar_baz'.length }).col).toBe('foo.'.length);
    expect(editorText(deleteWord({ ...call, col: 'foo.bar_baz'.length }))).toBe('foo.(qux)');
    expect(editorText(deleteWordForward({ ...fromText('x = "hello" + y'), col: 4 }))).toBe('x = " + y');
    expect(editorText(deleteWord({ ...fromText('ab\ncd'), row: 1, col: 0 }))).toBe('cd');
    // A departure, for Python's Unicode names: a word is of any letters (IPython's are ASCII
    // only, so `café` is two words there), and keeps its combining marks and emoji whole.
    expect(wordLeft(fromText('x = cafe\u0301')).col).toBe('x = '.length);
    expect(wordLeft(fromText('x = café')).col).toBe('x = '.length);
    expect(editorText(deleteWord(fromText('a = "👩‍👩‍👧🇫🇷')))).toBe('a = ');
    expect(wordRight({ ...fromText('名前 = 1'), col: 0 }).col).toBe('名前'.length);
  });

  it('never keeps a lone surrogate, even pasted', () => {
    expect(editorText(insert(emptyEditor(), 'a\ud83d'))).toBe('a\ufffd');
    expect(editorText(fromText('\ude00b'))).toBe('\ufffdb');
  });
});
