import { describe, expect, it } from 'vitest';
import {
  backspace,
  deleteWord,
  editorText,
  emptyEditor,
  fromText,
  insert,
  killToStart,
  move,
  newline,
} from '../../src/tui/lib/editor.js';

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

  it('kills to the line start and deletes words', () => {
    expect(editorText(killToStart(fromText('abc def')))).toBe('');
    expect(editorText(deleteWord(fromText('print(value')))).toBe('print(');
  });
});
