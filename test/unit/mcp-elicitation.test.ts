/**
 * Which clients get input() through elicitation, and the form they are shown (issue 42).
 */
import { describe, expect, it } from 'vitest';
import { inputForm, offersFormElicitation } from '../../src/modes/mcp/elicitation.js';

describe('elicitation of input()', () => {
  it('form mode is offered by `elicitation: {}` (before modes) and by `form`, not by `url` alone', () => {
    expect(offersFormElicitation({ elicitation: {} })).toBe(true);
    expect(offersFormElicitation({ elicitation: { form: {} } })).toBe(true);
    expect(offersFormElicitation({ elicitation: { form: {}, url: {} } })).toBe(true);
    expect(offersFormElicitation({ elicitation: { url: {} } })).toBe(false);
    expect(offersFormElicitation({ sampling: {} })).toBe(false);
    expect(offersFormElicitation(undefined)).toBe(false);
  });

  it('the prompt is the message; an empty prompt says which cell waits', () => {
    expect(inputForm('Your name? ', 2).message).toBe('Your name?');
    expect(inputForm('', 3).message).toBe('Cell 3 waits for a line of input (input()).');
    expect(inputForm('x', 1).requestedSchema).toEqual({
      type: 'object',
      properties: { input: expect.objectContaining({ type: 'string' }) },
      required: ['input'],
    });
  });
});
