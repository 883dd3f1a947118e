/**
 * A bracketed paste: taken in as its chunks come and put into the prompt once, at its end (each
 * chunk typed into the editor made the cell and drew it again: quadratic in the paste's size); a
 * large one says how far it has come; Ctrl-C while it comes drops it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FakeBackend } from '../helpers/fakeBackend.js';
import { KEYS } from '../helpers/ink.js';
import { mounted, run, start } from './mountApp.js';

afterEach(() => {
  for (const h of mounted.splice(0)) h.unmount();
});

const line = (i: number) => `x_${i} = ${i}\r`;

describe('a bracketed paste', () => {
  it('goes into the prompt once, at its end marker, however many chunks it comes in', async () => {
    const backend = new FakeBackend();
    const { h } = start({}, {}, { backend });
    await h.waitFor((f) => f.includes('In [1]:'), 'the prompt');
    await h.press(KEYS.pasteStart);
    // (Each chunk is a read of its own, and the notebook draws between them.)
    for (let i = 0; i < 20; i++) await h.press(line(i));
    await h.press('last = 1');
    expect(h.screen()).not.toContain('x_0 = 0');
    expect(h.screen()).toMatch(/In \[1\]:\s*$/m);
    await h.press(KEYS.pasteEnd);
    await h.waitFor((f) => f.includes('...: last = 1'), 'the paste in the prompt');
    expect(h.screen()).toContain('21 lines');
    await h.press(KEYS.enter);
    await h.waitFor((f) => f.includes('In [2]:'), 'the cell run');
    const code = Array.from({ length: 20 }, (_, i) => line(i).replace('\r', '\n')).join('');
    expect(backend.ran).toEqual([`${code}last = 1`]);
  });

  it('of a megabyte and more says how far it has come until it ends', async () => {
    const { h } = start();
    await h.waitFor((f) => f.includes('In [1]:'), 'the prompt');
    await h.press(KEYS.pasteStart);
    const chunk = `${'y'.repeat(64 * 1024 - 1)}\r`;
    for (let i = 0; i < 18; i++) await h.press(chunk);
    await h.waitFor((f) => /pasting… 1\.\d MB/.test(f), 'the progress message');
    await h.press(`end = 1${KEYS.pasteEnd}`);
    await h.waitFor((f) => f.includes('...: end = 1'), 'the paste in the prompt');
    expect(h.screen()).not.toContain('pasting…');
  });

  it('is dropped by Ctrl-C pressed while it comes, the rest of it with it', async () => {
    const backend = new FakeBackend();
    const { h } = start({}, {}, { backend });
    await h.waitFor((f) => f.includes('In [1]:'), 'the prompt');
    await h.type('kept');
    await h.press(KEYS.pasteStart);
    await h.press(line(1));
    await h.press(KEYS.ctrlC);
    await h.press(line(2));
    await h.press(KEYS.pasteEnd);
    await h.waitFor((f) => f.includes('paste cancelled'), 'the message');
    expect(h.screen()).not.toContain('x_');
    expect(h.screen()).toMatch(/In \[1\]: kept\s*$/m);
    await h.press(KEYS.enter);
    await h.waitFor((f) => f.includes('In [2]:'), 'the cell run');
    expect(backend.ran).toEqual(['kept']);
  });

  it('once in the prompt, is cleared by Ctrl-C as anything typed', async () => {
    const backend = new FakeBackend();
    const { h } = start({}, {}, { backend });
    await h.waitFor((f) => f.includes('In [1]:'), 'the prompt');
    await h.press(`${KEYS.pasteStart}${line(1)}${line(2)}${KEYS.pasteEnd}${KEYS.ctrlC}`);
    await h.waitFor((f) => /In \[1\]:\s*$/m.test(f) && !f.includes('x_2'), 'an empty prompt');
    await run(h, '1+1');
    await h.waitFor((f) => f.includes('In [2]:'), 'the cell run');
    expect(backend.ran).toEqual(['1+1']);
  });
});
