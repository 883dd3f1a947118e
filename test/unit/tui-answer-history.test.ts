import { describe, expect, it } from 'vitest';
import { AnswerHistory } from '../../src/tui/keys/answerHistory.js';

describe('answers recalled at an input() prompt (Up and Down, as pdb)', () => {
  it('walks the answers given at the same prompt and gives back what was typed', () => {
    const h = new AnswerHistory();
    h.remember('(Pdb) ', false, 'p a');
    h.remember('(Pdb) ', false, 'n');
    h.remember('(Pdb) ', false, 'n'); // (a repeat is kept once)
    h.remember('(Pdb) ', false, ''); // (an empty line is pdb's repeat, not an answer)
    h.remember('name: ', false, 'Ada');
    expect(h.step('c1', '(Pdb) ', false, 'wh', -1)).toBe('n');
    expect(h.step('c1', '(Pdb) ', false, 'n', -1)).toBe('p a');
    expect(h.step('c1', '(Pdb) ', false, 'p a', -1)).toBeUndefined(); // the oldest
    expect(h.step('c1', '(Pdb) ', false, 'p a', 1)).toBe('n');
    expect(h.step('c1', '(Pdb) ', false, 'n', 1)).toBe('wh'); // what was typed first
    expect(h.step('c1', '(Pdb) ', false, 'wh', 1)).toBeUndefined();
    expect(h.step('c2', 'name: ', false, '', -1)).toBe('Ada');
    expect(h.step('c3', 'other: ', false, '', -1)).toBeUndefined();
  });

  it('keeps no password and recalls none', () => {
    const h = new AnswerHistory();
    h.remember('Password: ', true, 'hunter2');
    expect(h.step('c1', 'Password: ', true, '', -1)).toBeUndefined();
    expect(h.step('c1', 'Password: ', false, '', -1)).toBeUndefined();
  });
});
