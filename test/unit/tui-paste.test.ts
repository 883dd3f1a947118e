/**
 * A bracketed paste as the notebook takes it in: cut into lines as its chunks come, put into the
 * editor once, and drawn in a window whatever its size.
 */
import { describe, expect, it } from 'vitest';
import { countLines, firstLines } from '../../src/tui/components/CellBlock.js';
import { cursorWindow } from '../../src/tui/components/Editor.js';
import * as ed from '../../src/tui/keys/editor.js';
import { Paste, pasteSize, withoutGutter } from '../../src/tui/keys/paste.js';
import { lineHead } from '../../src/tui/text/graphemes.js';

const pasted = (...chunks: string[]) => {
  const paste = new Paste();
  for (const chunk of chunks) paste.add(chunk);
  return paste;
};

describe('a paste being received', () => {
  it('cuts its chunks into lines, a line that spans chunks kept whole', () => {
    expect(pasted('a = 1\rb', ' = 2\rc = ', '3').take()).toEqual(['a = 1', 'b = 2', 'c = 3']);
    expect(pasted('x\n', '').take()).toEqual(['x', '']);
    expect(pasted().take()).toEqual(['']);
  });

  it('takes CR LF as one line break, also when the chunks part it', () => {
    expect(pasted('a\r\nb\r', '\nc').take()).toEqual(['a', 'b', 'c']);
    expect(pasted('a\r', '\r\nb').take()).toEqual(['a', '', 'b']);
  });

  it('drops control characters but tabs, and mends lone surrogates', () => {
    expect(pasted('\tx\x07 = 1\x1b[A', '\ud83d').take()).toEqual(['\tx = 1[A\ufffd']);
    // (A pair is never split between two of Ink's reads: a pair inside a chunk stays.)
    expect(pasted('\ud83d\ude00').take()).toEqual(['\ud83d\ude00']);
  });

  it('Ctrl-C inside it drops all of it, and whatever follows up to its end', () => {
    const paste = pasted('a = 1\rb = 2\r', 'c\x03', 'd = 4\r');
    expect(paste.cancelled).toBe(true);
    expect(paste.take()).toEqual(['']);
  });

  it('counts its size for the progress message', () => {
    const paste = pasted('x'.repeat(3 * 1024 * 1024 + 200_000));
    expect(pasteSize(paste.size)).toBe('3.2 MB');
    expect(pasteSize(200 * 1024)).toBe('200 KB');
  });

  it('of 300,000 lines goes into the editor (it overflowed the stack, spread into a call)', () => {
    const lines = Array.from({ length: 300_000 }, (_, i) => `x_${i} = ${i}`);
    const at = { lines: ['before = 0', 'after'], row: 0, col: 10 };
    const editor = ed.insertLines(at, ['', ...lines, '']);
    expect(editor.lines).toHaveLength(300_003);
    expect(editor.lines[1]).toBe('x_0 = 0');
    expect(editor.lines.at(-1)).toBe('after');
    expect(editor.row).toBe(300_001);
    expect(editor.col).toBe(0);
    // As one text, typed or put there by set_next_input().
    expect(ed.insert(at, `\n${lines.join('\n')}\n`).lines).toHaveLength(300_003);
    // Typing into it is as before.
    expect(ed.insert(ed.fromText('ab'), 'x\ny').lines).toEqual(['abx', 'y']);
  });
});

describe('a long line in view', () => {
  it('is measured only around the cursor, and cut with … on each side', () => {
    const line = `${'a'.repeat(2_000_000)}XYZ${'b'.repeat(2_000_000)}`;
    const view = cursorWindow(line, 2_000_001, 40);
    expect(view.at).toBe('Y');
    expect(view.before.startsWith('…')).toBe(true);
    expect(view.before.endsWith('aX')).toBe(true);
    expect(view.after.endsWith('…')).toBe(true);
    expect(view.before.length + view.after.length).toBeLessThanOrEqual(40);
  });

  it('near its start or end is the same window as the whole line gives', () => {
    const line = `${'é'.repeat(50)}😀${'x'.repeat(5000)}`;
    const near = cursorWindow(line, 52, 30);
    expect(near.at).toBe('x');
    expect(near.before).toBe(`…${'é'.repeat(17)}😀`);
    expect(near.after.endsWith('…')).toBe(true);
    const end = cursorWindow(line, line.length, 30);
    expect(end.at).toBe(' ');
    expect(end.after).toBe('');
  });

  it('not under the cursor is drawn from its head only, a surrogate pair never cut', () => {
    expect(lineHead('short', 80)).toBe('short');
    const head = lineHead('x'.repeat(80 * 8 + 63) + '😀'.repeat(10), 80);
    expect(head).toBe('x'.repeat(80 * 8 + 63));
    expect(lineHead('y'.repeat(10_000_000), 80)).toHaveLength(80 * 8 + 64);
  });

  it('the running cell counts its code lines and takes the first few without splitting it all', () => {
    expect(countLines('a\nb\nc')).toBe(3);
    expect(countLines('')).toBe(1);
    expect(firstLines('a\nb\nc', 2)).toBe('a\nb');
    expect(firstLines('a\nb\nc', 5)).toBe('a\nb\nc');
    expect(firstLines('a\nb', 0)).toBe('');
  });
});

describe('code copied from the notebook’s scroll-back', () => {
  it('pastes back as code: the gutter and the cell headers go', () => {
    expect(withoutGutter(['│ def f(x):', '│     return x + 1', '│', '│ f(2)'])).toEqual([
      'def f(x):',
      '    return x + 1',
      '',
      'f(2)',
    ]);
    expect(withoutGutter(['✓ [1] ok · 8 ms', '│ x = 1', '', '✗ [2] error · 3 ms', '│ 1/0'])).toEqual([
      'x = 1',
      '',
      '1/0',
    ]);
  });

  it('leaves anything else as it was pasted', () => {
    expect(withoutGutter(['x = 1', '│ y'])).toEqual(['x = 1', '│ y']);
    expect(withoutGutter(['│ x = 1', 'Out[1]: 1'])).toEqual(['│ x = 1', 'Out[1]: 1']);
    expect(withoutGutter(['✓ [1] ok'])).toEqual(['✓ [1] ok']); // (a header alone is no code)
    expect(withoutGutter(['', ''])).toEqual(['', '']);
  });

  it('is what a paste of such lines gives', () => {
    const paste = new Paste();
    paste.add('│ a = 1\r│ b = 2');
    expect(paste.take()).toEqual(['a = 1', 'b = 2']);
  });
});
