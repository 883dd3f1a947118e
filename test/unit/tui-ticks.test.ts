/**
 * The running cell's ticks (issue 16: the notebook's CPU while a cell streams): every 100 ms, and
 * every 200 ms while the cell floods its output, back to 100 ms once it calms down. A fake clock.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FLOOD_FLUSH_MS, FLUSH_MS, ticker } from '../../src/tui/hooks/useCellRunner.js';

describe('the running cell ticks', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('slows to FLOOD_FLUSH_MS while the cell floods its output, and speeds up again after', async () => {
    const buffer = { received: 0 };
    const at: number[] = [];
    const start = Date.now();
    const ticks = ticker(async () => void at.push(Date.now() - start), { buffer } as never);
    await vi.advanceTimersByTimeAsync(FLUSH_MS * 2);
    expect(at).toEqual([FLUSH_MS, 2 * FLUSH_MS]);
    // A flood: far more than a tick's worth of text before each tick.
    buffer.received += 1_000_000;
    await vi.advanceTimersByTimeAsync(FLUSH_MS);
    buffer.received += 1_000_000;
    await vi.advanceTimersByTimeAsync(FLOOD_FLUSH_MS);
    expect(at.slice(2)).toEqual([3 * FLUSH_MS, 3 * FLUSH_MS + FLOOD_FLUSH_MS]);
    // Quiet again: the tick after the next one comes FLUSH_MS later.
    await vi.advanceTimersByTimeAsync(FLOOD_FLUSH_MS + FLUSH_MS);
    expect(at.slice(4)).toEqual([3 * FLUSH_MS + 2 * FLOOD_FLUSH_MS, 4 * FLUSH_MS + 2 * FLOOD_FLUSH_MS]);
    ticks.stop();
    await vi.advanceTimersByTimeAsync(FLOOD_FLUSH_MS * 3);
    expect(at).toHaveLength(6);
  });
});
