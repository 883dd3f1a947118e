import { describe, expect, it } from 'vitest';
import { App } from '../../src/tui/App.js';
import { FakeBackend } from '../helpers/fakeBackend.js';
import { KEYS, mount } from '../helpers/ink.js';

/** What Ink writes when it gives up on incremental updates and repaints the whole screen. */
const CLEAR_SCREEN = ['\x1b[2J', '\x1bc', '\x1b[3J'];

describe('render budget', () => {
  it('200 finished cells and a streaming cell in a 24-row terminal never clear the screen', async () => {
    const backend = new FakeBackend({ stream: { events: [], hold: true } });
    const h = mount(<App backend={backend} imageMode="off" color={false} onExit={() => {}} />, {
      columns: 80,
      rows: 24,
    });
    const script = Array.from({ length: 200 }, (_, i) => `# %%\nprint(${i})`).join('\n');
    await h.press(`${KEYS.pasteStart}${script}\n# %%\nstream${KEYS.pasteEnd}`);
    await h.press(KEYS.enter);
    const until = Date.now() + 20_000;
    while (backend.ran.length < 201 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(backend.ran).toHaveLength(201);
    for (let i = 0; i < 300; i++) {
      backend.emit({ kind: 'stdout', text: `streamed line ${i} ${'x'.repeat(i % 120)}\n` });
      if (i % 30 === 0) await new Promise((r) => setTimeout(r, 60));
    }
    await new Promise((r) => setTimeout(r, 150));
    backend.finish();
    await new Promise((r) => setTimeout(r, 150));
    const written = h.stdout.writes.join('');
    expect(written).toContain('streamed line 299');
    for (const sequence of CLEAR_SCREEN)
      expect(written.includes(sequence), JSON.stringify(sequence)).toBe(false);
    h.unmount();
  });
});
