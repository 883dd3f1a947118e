/**
 * Keys typed ahead: keys that reach the notebook together (typed while it was busy, a
 * multiplexer's burst) are keys, in order, and each Enter ends a cell, whatever the kernel is
 * doing; only a bracketed paste is one cell.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FakeBackend } from '../helpers/fakeBackend.js';
import { KEYS } from '../helpers/ink.js';
import { deadlineIn } from '../helpers/kernel.js';
import { mounted, start } from './mountApp.js';

afterEach(() => {
  for (const h of mounted.splice(0)) h.unmount();
});

async function until(condition: () => boolean, what: string) {
  const deadline = deadlineIn(30_000);
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('keys typed ahead', () => {
  it('two cells and their Enters in one read run as two cells, in order', async () => {
    const backend = new FakeBackend();
    backend.holdIsComplete = true;
    const { h } = start({}, {}, { backend });
    await h.waitFor((f) => f.includes('In [1]:'), 'the prompt');
    await h.press('c = 3\ra + b + c\r');
    // The first Enter waits for the kernel's answer; the second cell's keys wait behind it.
    await until(() => backend.asked.length === 1, 'the first question');
    expect(backend.asked).toEqual(['c = 3']);
    backend.releaseIsComplete();
    await h.waitFor((f) => f.includes('In [3]:'), 'both cells run');
    expect(backend.ran).toEqual(['c = 3', 'a + b + c']);
    expect(backend.asked).toEqual(['c = 3', 'a + b + c']);
  });

  it('typed while a cell runs, they queue as cells of their own behind it', async () => {
    const backend = new FakeBackend({ slow: { events: [], hold: true } });
    const { h } = start({}, {}, { backend });
    await h.type('slow');
    await h.press(KEYS.enter);
    await h.waitFor((f) => f.includes('running'), 'the running cell');
    await h.press('c = 3\r');
    await h.press('a + b + c\r');
    await h.waitFor((f) => (f.match(/queued/g) ?? []).length >= 2, 'two queued cells');
    backend.finish();
    await h.waitFor((f) => f.includes('In [4]:'), 'all three cells run');
    expect(backend.ran).toEqual(['slow', 'c = 3', 'a + b + c']);
  });

  it('a block of several lines and Enters is typed line by line, as IPython takes it', async () => {
    const backend = new FakeBackend();
    const { h } = start({}, {}, { backend });
    await h.waitFor((f) => f.includes('In [1]:'), 'the prompt');
    // (The kernel's answer indents the line after `:`, as IPython's does for typed lines.)
    await h.press('if True:\rx = 1\r\r');
    await h.waitFor((f) => f.includes('In [2]:'), 'the block run');
    expect(backend.ran).toEqual(['if True:\n    x = 1']);
  });

  it('a bracketed paste of two lines is one cell', async () => {
    const backend = new FakeBackend();
    const { h } = start({}, {}, { backend });
    await h.waitFor((f) => f.includes('In [1]:'), 'the prompt');
    await h.press(`${KEYS.pasteStart}c = 3\ra + b + c${KEYS.pasteEnd}`);
    await h.waitFor((f) => f.includes('...: a + b + c'), 'the paste in the editor');
    expect(backend.ran).toEqual([]);
    await h.press(KEYS.enter);
    await h.waitFor((f) => f.includes('In [2]:'), 'the cell run');
    expect(backend.ran).toEqual(['c = 3\na + b + c']);
  });
});
