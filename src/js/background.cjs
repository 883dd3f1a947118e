'use strict';
/**
 * What cells leave running: errors of callbacks that outlive their cell print like Node's
 * ("Uncaught ...") and the kernel lives on; `__omp_drain__()` (`omp-eval run`, as `node
 * script.js` would) waits for the timers, sockets and child processes a script left, and ends
 * at the first uncaught error or process.exit() of a callback.
 */
function createBackground({ proc, main, timers, frames, stacks, membrane, outputId, isProcessExit }) {
  /** Active resources by type (timers, sockets, child processes) keeping the loop alive. */
  function resourceCounts() {
    const counts = new Map();
    for (const type of proc.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
    return counts;
  }
  /** The runner's own, taken when the kernel became idle after its init. */
  let idle = new Map();
  const { setTimeout } = timers;
  let draining = null;
  /**
   * The first failure of a callback while no cell ran (between cells): the next drain ends with
   * it. (`omp-eval run` sends the drain as a cell of its own, after the script's last cell.)
   */
  let between = null;

  const describe = (value) => (value instanceof main.Error ? value.message : stacks.inspect(value));

  proc.on(
    'uncaughtException',
    membrane.expose('onUncaughtException', (_, err) => {
      const failure = isProcessExit(err) ? err : new main.Error(`a callback threw: ${describe(err)}`);
      if (draining && !draining.failure) {
        draining.failure = failure;
        if (isProcessExit(err)) return;
      } else if (!draining && outputId() === null) {
        between ??= failure;
        if (isProcessExit(err)) {
          frames.text(1, null, `process.exit(${err.code ?? ''}) was called by a callback\n`);
          return;
        }
      }
      frames.text(1, outputId(), `${stacks.uncaught(err)}\n`);
    }),
  );
  proc.on(
    'unhandledRejection',
    membrane.expose('onUnhandledRejection', (_, reason) => {
      const failure = new main.Error(`a promise was rejected and not handled: ${describe(reason)}`);
      if (draining && !draining.failure) draining.failure = failure;
      else if (!draining && outputId() === null) between ??= failure;
      // (Node's REPL says `Uncaught`, as of a callback's error: no "(in promise)".)
      frames.text(1, outputId(), `${stacks.uncaught(reason)}\n`);
    }),
  );

  const drain = membrane.expose(
    '__omp_drain__',
    () =>
      new main.Promise((resolve, reject) => {
        draining = { failure: between };
        between = null;
        const check = () => {
          if (draining.failure) {
            const failure = draining.failure;
            draining = null;
            reject(failure);
            return;
          }
          const now = resourceCounts();
          if ([...now].every(([type, n]) => n <= (idle.get(type) ?? 0))) {
            draining = null;
            resolve();
            return;
          }
          // Counted after the timer's callback returned: a timer that is firing still counts.
          setTimeout(
            membrane.expose('drainCheck', () => Promise.resolve().then(check)),
            20,
          );
        };
        check();
      }),
  );

  /** What keeps the loop alive beyond the runner's own, as `Timeout×2, TCPServerWrap×1` ('' for nothing). */
  const pending = membrane.expose('__omp_pending__', () =>
    [...resourceCounts()]
      .filter(([type, n]) => n > (idle.get(type) ?? 0))
      .map(([type, n]) => `${type}×${n - (idle.get(type) ?? 0)}`)
      .join(', '),
  );

  return {
    drain,
    pending,
    markIdle() {
      idle = resourceCounts();
    },
  };
}

module.exports = { createBackground };
