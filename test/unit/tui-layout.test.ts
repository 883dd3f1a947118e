import { describe, expect, it } from 'vitest';
import { liveLayout, wrappedRows } from '../../src/tui/layout/liveLayout.js';

const base = {
  rows: 24,
  columns: 80,
  editorLines: 1,
  singleLinePrompt: false,
  queued: 0,
  running: true,
  menuItems: 0,
  statusText: '● idle │ Python 3.11 │ ~ │ session │ [3]  /help',
};

describe('liveLayout', () => {
  for (const queued of [0, 1, 2, 3, 5]) {
    it(`keeps the live region under the terminal's height with ${queued} queued cells`, () => {
      const layout = liveLayout({ ...base, queued });
      expect(layout.queuedRows).toBe(Math.min(queued, 3) + (queued > 3 ? 1 : 0));
      expect(layout.total).toBe(
        layout.runningRows + layout.editorRows + layout.queuedRows + layout.statusRows,
      );
      expect(layout.total).toBeLessThan(24);
      // The running cell takes what is left, less a third of the rows kept free for a resize.
      expect(layout.total).toBe(24 - 1 - 8);
    });
  }

  it('counts a status line that wraps as the rows it takes', () => {
    expect(wrappedRows('x'.repeat(80), 80)).toBe(1);
    expect(wrappedRows('x'.repeat(81), 80)).toBe(2);
    expect(wrappedRows('漢'.repeat(41), 80)).toBe(2); // wide characters take two columns
    expect(wrappedRows('a\nb', 80)).toBe(2);
    const layout = liveLayout({ ...base, statusText: 'y'.repeat(100) });
    expect(layout.statusRows).toBe(2);
    expect(layout.total).toBeLessThan(24);
  });

  it('gives a long paste at most half of what is left, and the menu its rows', () => {
    const layout = liveLayout({ ...base, editorLines: 100, menuItems: 10 });
    expect(layout.menuRows).toBe(6);
    expect(layout.editorRows).toBeLessThanOrEqual(5);
    expect(layout.total).toBeLessThan(24);
    const idle = liveLayout({ ...base, running: false, editorLines: 3 });
    expect(idle).toMatchObject({ runningRows: 0, editorRows: 3 });
  });

  it('stays under the height of a tiny terminal', () => {
    for (let rows = 6; rows < 12; rows++) {
      expect(liveLayout({ ...base, rows, queued: 3, editorLines: 9 }).total).toBeLessThan(rows);
    }
  });
});
