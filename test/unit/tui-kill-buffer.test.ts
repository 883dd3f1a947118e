import { describe, expect, it } from 'vitest';
import { KillBuffer, removedText } from '../../src/tui/keys/killBuffer.js';

describe('the kill buffer (Ctrl-Y)', () => {
  it('finds the one piece an edit removed', () => {
    expect(removedText('print(alpha beta)', 'print(alpha )')).toBe('beta');
    expect(removedText('aaa', 'aa')).toBe('a');
    expect(removedText('a\nb', 'ab')).toBe('\n');
    expect(removedText('same', 'same')).toBe('');
    expect(removedText('x = 1', '')).toBe('x = 1');
  });

  it('adds kills in a row up in text order; another key starts afresh', () => {
    const k = new KillBuffer();
    expect(k.yank).toBe('');
    k.kill('beta', true);
    k.kill('alpha ', true);
    expect(k.yank).toBe('alpha beta');
    k.kill(' gamma', false);
    expect(k.yank).toBe('alpha beta gamma');
    k.other();
    k.kill('new', false);
    expect(k.yank).toBe('new');
    k.kill('', true); // nothing removed (Ctrl-W at the very start): the buffer stays
    expect(k.yank).toBe('new');
  });
});
