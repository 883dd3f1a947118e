/**
 * The notebook and what its kernel answers or asks for: Enter runs or adds a line as the kernel
 * says (keys typed meanwhile wait behind it), the notebook's count goes with every cell,
 * clear_output clears the running cell, set_next_input fills the next prompt.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FakeBackend } from '../helpers/fakeBackend.js';
import { KEYS } from '../helpers/ink.js';
import { mounted, promptOf, run, runBody, start } from './mountApp.js';

afterEach(() => {
  for (const h of mounted.splice(0)) h.unmount();
});

describe('Enter asks the kernel', () => {
  it('adds a line, indented as the kernel says, when it says the cell is incomplete', async () => {
    const backend = new FakeBackend();
    backend.completeness.weird = { status: 'incomplete', indent: '   ' };
    const { h } = start({}, {}, { backend });
    await run(h, 'weird');
    await h.waitFor((f) => f.includes('   ...:'), 'a second line');
    await h.type('x');
    await h.waitFor((f) => f.includes('   ...:    x'), 'typing on the indented line');
    expect(backend.ran).toEqual([]);
    expect(backend.asked).toEqual(['weird']);
  });

  it('runs what the kernel calls complete, where the local rules would wait', async () => {
    const backend = new FakeBackend();
    backend.completeness['%time for i in range(3):'] = { status: 'complete' };
    const { h } = start({}, {}, { backend });
    await run(h, '%time for i in range(3):');
    await h.waitFor((f) => f.includes('In [2]:'), 'the cell to run');
    expect(backend.ran).toEqual(['%time for i in range(3):']);
  });

  it('keys typed while the answer is on its way wait behind it, in order', async () => {
    const backend = new FakeBackend();
    backend.holdIsComplete = true;
    const { h } = start({}, {}, { backend });
    await run(h, 'a = 1');
    await h.type('b');
    await h.press(KEYS.backspace);
    await h.type('c = 2');
    expect(backend.ran).toEqual([]);
    expect(h.frame()).not.toContain('c = 2');
    backend.releaseIsComplete();
    await h.waitFor((f) => f.includes('In [2]: c = 2'), 'the held keys on the next prompt');
    expect(backend.ran).toEqual(['a = 1']);
  });

  it('a /command runs without asking', async () => {
    const backend = new FakeBackend();
    const { h } = start({}, {}, { backend });
    await run(h, '/help');
    await h.waitFor((f) => f.includes('/restart'), 'the help');
    expect(backend.asked).toEqual([]);
  });
});

describe('what the kernel asks of the notebook', () => {
  it('sends the notebook’s count with each cell, one sequence across languages', async () => {
    const { h, backend } = start();
    await run(h, 'a = 1');
    await h.waitFor((f) => f.includes('In [2]:'));
    await runBody(h, '%%js\n1');
    await h.waitFor((f) => f.includes('In [3]:'));
    await run(h, 'b = 2');
    await h.waitFor((f) => f.includes('In [4]:'));
    expect(backend.cellNumbers).toEqual([1, 2, 3]);
  });

  it('clear_output clears what the cell showed so far', async () => {
    const { h } = start({
      progress: {
        events: [
          { kind: 'stdout', text: 'step one\n' },
          { kind: 'clear_output' },
          { kind: 'stdout', text: 'step two\n' },
        ],
      },
    });
    await run(h, 'progress');
    const frame = await h.waitFor((f) => f.includes('step two') && f.includes('In [2]:'));
    expect(frame).not.toContain('step one');
  });

  it('set_next_input puts its text into an empty prompt once the cell ends', async () => {
    const { h } = start({
      '%load snippet.py': {
        events: [{ kind: 'set_next_input', text: '# %load snippet.py\nx = 1\n', replace: true }],
      },
    });
    await run(h, '%load snippet.py');
    const frame = await h.waitFor(
      (f) => f.includes('✓ [1] ok') && /^In \[2\]: \S/.test(promptOf(f)),
      'a text',
    );
    expect(promptOf(frame), 'the loaded text').toBe('In [2]: # %load snippet.py\n   ...: x = 1');
  });

  it('leaves a prompt the user began alone; the text waits in the history', async () => {
    const { h, backend } = start({
      slow: { events: [{ kind: 'set_next_input', text: 'loaded = 1', replace: false }], hold: true },
    });
    await run(h, 'slow');
    await h.waitFor((f) => f.includes('running'));
    await h.type('typed');
    backend.finish();
    await h.waitFor((f) => f.includes('the text for it is in the history'), 'the message');
    expect(h.frame()).toContain('In [2]: typed');
    // (Up after typed text looks for entries that start with it: none here)
    await h.press(KEYS.up);
    await h.press(KEYS.ctrlC);
    await h.waitFor((f) => /In \[2\]: *$/m.test(f), 'an empty prompt');
    await h.press(KEYS.up);
    await h.waitFor((f) => f.includes('In [2]: loaded = 1'), 'the text from the history');
  });
});
