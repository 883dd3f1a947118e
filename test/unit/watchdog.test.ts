import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clampTimeout } from '../../src/eval/cellTimeout.js';
import { CellTimeoutError, Watchdog } from '../../src/eval/executor/watchdog.js';

describe('Watchdog', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('fires after its budget, not before start', () => {
    const w = new Watchdog(2);
    vi.advanceTimersByTime(5000);
    expect(w.signal.aborted).toBe(false);
    w.start();
    vi.advanceTimersByTime(1999);
    expect(w.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(w.signal.aborted).toBe(true);
    expect(w.signal.reason).toBeInstanceOf(CellTimeoutError);
    expect((w.signal.reason as Error).message).toBe('eval cell timed out after 2s');
  });

  it('is suspended while paused, reference-counted, and each resume starts a fresh window', () => {
    const w = new Watchdog(2);
    w.start();
    vi.advanceTimersByTime(1500);
    w.pause();
    w.pause();
    vi.advanceTimersByTime(60_000);
    w.resume();
    vi.advanceTimersByTime(60_000);
    expect(w.signal.aborted).toBe(false);
    w.resume();
    vi.advanceTimersByTime(1999);
    expect(w.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(w.signal.aborted).toBe(true);
  });

  it('ignores an unbalanced resume, never fires without a budget, and stops on dispose', () => {
    const w = new Watchdog(1);
    w.resume();
    w.start();
    w.dispose();
    vi.advanceTimersByTime(5000);
    expect(w.signal.aborted).toBe(false);
    const none = new Watchdog(undefined);
    none.start();
    vi.advanceTimersByTime(10_000_000);
    expect(none.signal.aborted).toBe(false);
  });

  it('clamps timeouts to 1..3600 with a default of 30', () => {
    expect(clampTimeout(undefined)).toBe(30);
    expect(clampTimeout(0.2)).toBe(1);
    expect(clampTimeout(99999)).toBe(3600);
    expect(clampTimeout(12)).toBe(12);
  });
});
