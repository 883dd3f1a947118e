import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../src/tui/App.js';
import { FakeBackend } from '../helpers/fakeBackend.js';
import { KEYS, mount } from '../helpers/ink.js';
import { mounted } from './mountApp.js';

const reads = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../src/tui/session/history.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/tui/session/history.js')>();
  return {
    ...original,
    loadHistory: (file: string) => {
      reads.count++;
      return original.loadHistory(file);
    },
  };
});

afterEach(() => {
  for (const h of mounted.splice(0)) h.unmount();
});

describe("the notebook's history file", () => {
  it('is read once, not on every frame', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'omp-history-')), 'history.json');
    writeFileSync(file, JSON.stringify(['print("from before")']));
    const h = mount(
      <App
        backend={new FakeBackend({})}
        imageMode="off"
        color={false}
        historyFile={file}
        onExit={() => {}}
      />,
    );
    mounted.push(h);
    await h.waitFor((f) => f.includes('In [1]:'));
    await h.type('pri'); // (Up looks for entries that start with what was typed)
    await h.press(KEYS.up);
    await h.waitFor((f) => f.includes('print("from before")'));
    expect(reads.count).toBe(1);
  });
});
