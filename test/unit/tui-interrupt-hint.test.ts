import { describe, expect, it } from 'vitest';
import { INTERRUPTING_MESSAGE, initialState, reducer } from '../../src/tui/state/reducer.js';

describe('the interrupt hint', () => {
  it('goes when the interrupted cell asks for input again (the kernel is busy, not interrupting)', () => {
    let state = initialState({ state: 'busy', cwd: '/', mode: 'session' });
    state = reducer(state, { type: 'kernel', info: { state: 'interrupting' } });
    expect(INTERRUPTING_MESSAGE).toBe('Interrupting… (killed after 5 s)');
    state = reducer(state, { type: 'message', text: 'Interrupting… (killed after 5 s)' });
    expect(reducer(state, { type: 'kernel', info: { state: 'interrupting' } }).message).toBe(
      INTERRUPTING_MESSAGE,
    );
    expect(reducer(state, { type: 'kernel', info: { state: 'busy' } }).message).toBeUndefined();
    // Another message stays.
    const other = reducer(state, { type: 'message', text: 'something else' });
    expect(reducer(other, { type: 'kernel', info: { state: 'busy' } }).message).toBe('something else');
  });
});
