import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../helpers/fakeBackend.js';
import { KEYS } from '../helpers/ink.js';
import { count, mounted, start } from './mountApp.js';

/** What Ink writes when it gives up on incremental updates and repaints the whole screen. */
const CLEAR_SCREEN = ['\x1b[2J', '\x1bc', '\x1b[3J'];

const until = async (condition: () => boolean, what: string, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

async function session(cells: number, rows = 24, timeoutMs = 60_000) {
  const backend = new FakeBackend({ stream: { events: [], hold: true } });
  const { h } = start({}, { columns: 80, rows }, { backend });
  const script = Array.from({ length: cells }, (_, i) => `# %%\nprint(${i})`).join('\n');
  await h.press(`${KEYS.pasteStart}${script}${KEYS.pasteEnd}`);
  await h.press(KEYS.enter);
  await until(() => backend.ran.length === cells, `${cells} cells`, timeoutMs);
  await h.waitFor((f) => f.includes(`In [${cells + 1}]:`), 'the prompt after the last cell', timeoutMs);
  return { h, backend };
}

describe('render budget', () => {
  for (const queued of [0, 1, 2, 3]) {
    it(`a cell streaming 100 lines with ${queued} queued cells in 80×24 never clears the screen`, async () => {
      const backend = new FakeBackend({ stream: { events: [], hold: true } });
      const { h } = start({}, { columns: 80, rows: 24 }, { backend });
      const script = ['# %%\nstream', ...Array.from({ length: queued }, (_, i) => `# %%\nq${i}`)].join('\n');
      await h.press(`${KEYS.pasteStart}${script}${KEYS.pasteEnd}`);
      await h.press(KEYS.enter);
      await until(() => backend.ran.length === 1, 'the streaming cell');
      for (let i = 0; i < 100; i++) {
        backend.emit({ kind: 'stdout', text: `streamed line ${i} ${'x'.repeat(i % 70)}\n` });
        if (i % 20 === 0) await new Promise((r) => setTimeout(r, 60));
      }
      await h.waitFor((f) => f.includes('streamed line 99'));
      backend.finish();
      await h.waitFor((f) => f.includes(`In [${queued + 2}]:`));
      const written = h.stdout.writes.join('');
      for (const sequence of CLEAR_SCREEN)
        expect(written.includes(sequence), JSON.stringify(sequence)).toBe(false);
      for (const line of h.screen().split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    });
  }

  it('at 1,000 cells, Ctrl-O prints one cell and a resize prints none again', async () => {
    const { h } = await session(1000, 24, 170_000);
    const before = h.stdout.bytes;
    await h.press(KEYS.ctrlO);
    await h.waitFor((f) => count(f, '│ print(999)') === 2, 'the expanded cell');
    const ctrlO = h.stdout.bytes - before;
    expect(ctrlO).toBeLessThan(20 * 1024);
    const beforeResize = h.stdout.bytes;
    h.stdout.resize(70, 20);
    await h.waitFor(() => /In \[1001\]:/.test(h.screen()), 'the prompt after the resize');
    h.stdout.resize(90, 30);
    await h.waitFor(() => /In \[1001\]:/.test(h.screen()) && h.screen().split('\n').length > 1, 'again');
    expect(h.stdout.bytes - beforeResize).toBeLessThan(20 * 1024);
    // Every cell is in the transcript once (twice for the one shown with Ctrl-O), never replayed.
    const transcript = h.frame();
    expect(count(transcript, '│ print(500)')).toBe(1);
    expect(count(transcript, '│ print(999)')).toBe(2);
    for (const written of h.stdout.writes) {
      for (const sequence of CLEAR_SCREEN) expect(written.includes(sequence)).toBe(false);
    }
  }, 180_000);

  it('keeps finished cells as data: the printed text is not held by Ink', async () => {
    const { h } = await session(300);
    const { default: instances } = (await import(
      new URL('./instances.js', import.meta.resolve('ink')).href
    )) as { default: WeakMap<object, { fullStaticOutput?: string }> };
    expect(instances.get(h.stdout)?.fullStaticOutput ?? '').toBe('');
    for (const h2 of mounted) expect(h2).toBeDefined();
  }, 120_000);
});
