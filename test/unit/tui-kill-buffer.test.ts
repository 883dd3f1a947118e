import { describe, expect, it } from 'vitest';
import { KillBuffer, removedText } from '../../src/tui/keys/killBuffer.js';

describe('the kill buffer (Ctrl-Y)', () => {
  it('takes what a kill removed from the cursors, never by comparing the texts', () => {
    // (the review's cases: a text diff read them as "oo f", "cab" and ", x")
    expect(removedText('a foo fun', 6, 'a fun', 2, true)).toBe('foo ');
    expect(removedText('abcabd', 3, 'abd', 0, true)).toBe('abc');
    expect(removedText('print(x, x)', 9, 'print(x)', 6, true)).toBe('x, ');
    expect(removedText('a\nb', 2, 'ab', 1, true)).toBe('\n');
    expect(removedText('x = 1 + 1', 4, 'x = ', 4, false)).toBe('1 + 1');
    expect(removedText('aab', 1, 'ab', 1, false)).toBe('a');
  });

  it('adds up a word kill made again, as IPython; line kills and a different kill start afresh', () => {
    const k = new KillBuffer();
    expect(k.yank).toBe('');
    k.kill('beta', true, 'deleteToSpace');
    k.kill('alpha ', true, 'deleteToSpace');
    expect(k.yank).toBe('alpha beta');
    k.kill(' gamma', false, 'deleteWordForward'); // another kill: afresh
    expect(k.yank).toBe(' gamma');
    k.kill('ab', true, 'killToStart');
    k.kill('cd', false, 'killToEnd');
    expect(k.yank).toBe('cd'); // (IPython: Ctrl-U then Ctrl-K yanks only the last)
    k.kill('x', false, 'killToEnd');
    expect(k.yank).toBe('x'); // (Ctrl-K twice: the last line's end only)
    k.other();
    k.kill('new', false, 'deleteWordForward');
    expect(k.yank).toBe('new');
    k.kill('', true, 'deleteToSpace'); // nothing removed (Ctrl-W at the very start): the buffer stays
    expect(k.yank).toBe('new');
  });
});
