/**
 * At most `bridge.maxConcurrent` bridge calls are answered at once, over all kernels of the host
 * (50 threads calling completion() must not run 50 commands); the rest wait in order. A waiting
 * call whose cell is interrupted (or whose kernel gave up on it) leaves the queue at once.
 */
import type { BridgeHandler } from '../protocol/index.js';

const DEFAULT_BRIDGE_CONCURRENCY = 4;
const CANCELLED = 'cancelled: the cell was interrupted';

export function limitBridge(
  handler: BridgeHandler,
  maxConcurrent = DEFAULT_BRIDGE_CONCURRENCY,
): BridgeHandler {
  let running = 0;
  const queue: (() => void)[] = [];
  const release = () => {
    running--;
    queue.shift()?.();
  };
  /** Resolves when a slot is free (taking it); rejects when `signal` aborts first. */
  const acquire = (signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(new Error(CANCELLED));
      if (running < maxConcurrent) {
        running++;
        return resolve();
      }
      const start = () => {
        signal.removeEventListener('abort', onAbort);
        running++;
        resolve();
      };
      const onAbort = () => {
        const at = queue.indexOf(start);
        if (at >= 0) queue.splice(at, 1);
        reject(new Error(CANCELLED));
      };
      queue.push(start);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  return async (request, signal) => {
    await acquire(signal);
    try {
      return await handler(request, signal);
    } finally {
      release();
    }
  };
}
