import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  capYoungGeneration,
  compactingCollection,
  idleCollector,
  whenGrown,
} from '../../src/tui/runtime/memory.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('idle-time collection', () => {
  it('collects once the notebook has been idle after running cells, once per idle spell', () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    const c = idleCollector(collect, 1000);
    c.idle(); // the notebook starts idle: nothing ran, nothing to collect
    vi.advanceTimersByTime(5000);
    expect(collect).not.toHaveBeenCalled();

    c.busy();
    c.idle();
    vi.advanceTimersByTime(999);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(collect).toHaveBeenCalledTimes(1);

    c.idle(); // idle again without work in between
    vi.advanceTimersByTime(5000);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('does not collect while cells run again before the delay is over', () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    const c = idleCollector(collect, 1000);
    c.busy();
    c.idle();
    vi.advanceTimersByTime(500);
    c.busy(); // the next cell starts
    vi.advanceTimersByTime(5000);
    expect(collect).not.toHaveBeenCalled();
    c.idle();
    vi.advanceTimersByTime(1000);
    expect(collect).toHaveBeenCalledTimes(1);
    c.busy();
    c.idle();
    c.dispose(); // the notebook ends: no collection after it
    vi.advanceTimersByTime(5000);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('collects only once the heap grew by the threshold since the last collection', () => {
    let heap = 100;
    const collect = vi.fn(() => {
      heap -= 30; // what a collection returns
    });
    const maybe = whenGrown(collect, () => heap, 50);
    heap = 140; // +40 since the start: not worth a pause
    maybe();
    expect(collect).not.toHaveBeenCalled();
    heap = 160;
    maybe();
    expect(collect).toHaveBeenCalledTimes(1); // heap 130 is the new baseline
    heap = 170;
    maybe();
    expect(collect).toHaveBeenCalledTimes(1);
    heap = 180;
    maybe();
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it('runs a real full collection and leaves no `gc` for later contexts', () => {
    const collect = compactingCollection();
    let garbage: object[] | undefined = Array.from({ length: 300_000 }, (_, i) => ({ i, s: `x${i}` }));
    const withGarbage = v8.getHeapStatistics().used_heap_size;
    garbage = undefined;
    collect();
    expect(garbage).toBeUndefined();
    expect(v8.getHeapStatistics().used_heap_size).toBeLessThan(withGarbage - 10 * 1024 * 1024);
    expect(vm.runInNewContext('typeof gc')).toBe('undefined');
    expect(compactingCollection()).toBe(collect);
  });

  it('lets the young generation grow to its cap, and stops its growth there', async () => {
    const collect = compactingCollection(); // (before the spy: it turns --expose-gc on and off)
    const flags = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => {});
    const stopped = () => flags.mock.calls.some(([flag]) => flag === '--semi-space-growth-factor=1');
    /** Runs a collection and resolves once observers of it have been told. */
    const collected = () =>
      new Promise<void>((resolve) => {
        const observer = new PerformanceObserver(() => {
          observer.disconnect();
          setImmediate(resolve);
        });
        observer.observe({ entryTypes: ['gc'] });
        collect();
      });
    let size = 1024 * 1024;
    const stop = capYoungGeneration(8 * 1024 * 1024, () => size);
    try {
      await collected();
      expect(stopped()).toBe(false); // below the cap: V8 may grow it
      size = 8 * 1024 * 1024;
      await collected();
      expect(stopped()).toBe(true);
      flags.mockClear();
      capYoungGeneration(8 * 1024 * 1024, () => 16 * 1024 * 1024); // already over: stopped at once
      expect(stopped()).toBe(true);
    } finally {
      stop(); // (before the mock goes: the real flag must not be set by this test)
      flags.mockRestore();
    }
  });
});
