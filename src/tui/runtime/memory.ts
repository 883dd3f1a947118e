/**
 * The notebook's memory over a long session (issue 16: after 1,000 cells at most 1.3× the RSS at
 * start). What a session keeps grows little (finished cells are compact data); what grows is the
 * V8 heap around it, which keeps its high-water mark:
 * - the young generation doubles its semi-spaces under load, from 1 MB up to 16 MB each, and never
 *   gives them back;
 * - the old generation is collected only when it reaches a limit set from its last size, so the
 *   garbage of 1,000 cells' renders stays on half-empty pages that are never released.
 * Node runs no collection while the process is idle (a browser does). So the notebook caps the
 * young generation (capYoungGeneration), and once its cells are done and it has been idle a moment,
 * it runs one compacting collection, which moves the live objects together and returns the
 * emptied pages (when the heap grew 8 MB since the last: a few small cells are not worth the
 * pause). Measured (bench/tui.ts): 1,000 cells took the RSS from 77 to 130 MB before, to 78–85 MB
 * with both; the collection takes about 20–50 ms, once, while nothing runs.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

/** How long the notebook is idle, after its last cell, before the collection. */
const IDLE_COLLECT_MS = 1000;

/**
 * The young generation's size (V8's new space, both semi-spaces) past which it no longer grows:
 * 8 MB, from its first 1 MB. A young generation of 1 MB made a cell printing 100 MB run 400
 * scavenges, each copying the text still waiting to be shown (half the notebook's time went to
 * the collector); grown to V8's own limit of 32 MB, it would keep that much more for the rest of
 * the session (V8 never gives it back).
 */
const YOUNG_GENERATION_BYTES = 8 * 1024 * 1024;

const newSpaceBytes = () =>
  v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;

/**
 * Lets the young generation grow up to `maxBytes` and no further: after each collection that
 * leaves it at `maxBytes` or more, growth stops (`--semi-space-growth-factor`, a flag V8 reads each
 * time it would grow; a flag that sizes the heap can only be given at start). Set before the
 * notebook loads; returns what stops the watch.
 */
export function capYoungGeneration(maxBytes = YOUNG_GENERATION_BYTES, size = newSpaceBytes): () => void {
  const stopGrowth = () => v8.setFlagsFromString('--semi-space-growth-factor=1');
  if (size() >= maxBytes) {
    stopGrowth();
    return () => {};
  }
  const observer = new PerformanceObserver(() => {
    if (size() < maxBytes) return;
    stopGrowth();
    observer.disconnect();
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}

let collect: (() => void) | undefined;

/**
 * A compacting full collection. `gc` comes from a context made while --expose-gc was on; the
 * flag is then turned off again, so no later context (a cell's vm, none today) sees `gc`.
 */
export function compactingCollection(): () => void {
  if (!collect) {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    v8.setFlagsFromString('--no-expose-gc');
    collect = () => {
      v8.setFlagsFromString('--compact-on-every-full-gc');
      try {
        gc();
      } finally {
        v8.setFlagsFromString('--no-compact-on-every-full-gc');
      }
    };
  }
  return collect;
}

/** Heap growth since the last collection (or the start) below which none is worth its pause. */
const WORTH_COLLECTING_BYTES = 8 * 1024 * 1024;

/**
 * `collect`, but only once the heap grew by `threshold` since the last collection or the first
 * call's size: a few small cells leave little to return, and a collection pauses the notebook
 * (20–50 ms, felt as one slow key).
 */
export function whenGrown(
  collect: () => void,
  heapSize: () => number = () => v8.getHeapStatistics().total_heap_size,
  threshold = WORTH_COLLECTING_BYTES,
): () => void {
  let baseline = heapSize();
  return () => {
    if (heapSize() < baseline + threshold) return;
    collect();
    baseline = heapSize();
  };
}

export interface IdleCollector {
  /** Cells run or wait: no collection now, and one is worth it once the notebook is idle. */
  busy(): void;
  /** Nothing runs or waits: collect after `delayMs`, unless busy again (once per idle spell). */
  idle(): void;
  dispose(): void;
}

/** Runs `collectNow` once the notebook has been idle `delayMs` after it ran cells. */
export function idleCollector(collectNow: () => void, delayMs = IDLE_COLLECT_MS): IdleCollector {
  let dirty = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const cancel = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  return {
    idle: () => {
      cancel();
      if (!dirty) return;
      timer = setTimeout(() => {
        timer = undefined;
        dirty = false;
        collectNow();
      }, delayMs);
      timer.unref();
    },
    busy: () => {
      cancel();
      dirty = true;
    },
    dispose: cancel,
  };
}
