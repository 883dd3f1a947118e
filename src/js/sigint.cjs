'use strict';
/**
 * Ctrl-C, without losing one. Node stops synchronous code on SIGINT with the watchdog of
 * `breakOnSigint`, but a SIGINT that lands while that watchdog is being taken down (just as a
 * script ends) is dropped, and one that lands just after it kills the process: both happen when
 * the host interrupts a cell right after its first output. So, as Node's REPL does, the kernel
 * keeps the watchdog started for its whole life (Node's `contextify` binding): every SIGINT
 * either stops the running script or stays pending, and the pending one is collected after the
 * script and, while an async cell awaits, every few milliseconds.
 *
 * A cell that listens for SIGINT itself takes the signal over (libuv installs its handler): then
 * the runner listens too, and the watchdog is put back before every script.
 */
const POLL_MS = 5;
/** How long a cell whose child process SIGINT ended waits for the runner's own SIGINT. */
const SETTLE_MS = 1000;

/**
 * An error of execSync() and the like whose child SIGINT ended. (Not an exit status of 130: a
 * command may exit so by itself, and would wait SETTLE_MS for nothing. A shell whose child SIGINT
 * ended ends by SIGINT too.)
 */
function childInterrupted(err) {
  if (err === null || typeof err !== 'object') return false;
  try {
    return err.signal === 'SIGINT';
  } catch {
    return false;
  }
}

function createSigint({ proc, timers, membrane, frames, onSigint }) {
  let contextify = null;
  try {
    const binding = proc.binding('contextify');
    if (typeof binding.startSigintWatchdog === 'function') contextify = binding;
  } catch {
    contextify = null;
  }
  const own = membrane.expose('onSigint', () => onSigint());
  if (contextify?.startSigintWatchdog() !== true) {
    // No watchdog of our own: SIGINT reaches the listener (lost if it lands just as a script ends).
    contextify = null;
    proc.on('SIGINT', own);
  }

  /** A SIGINT arrived since the last look (and is taken). */
  function takePending() {
    if (!contextify) return false;
    contextify.startSigintWatchdog();
    return contextify.stopSigintWatchdog();
  }

  /**
   * After a cell's error: whether a SIGINT for it came. The runner gets SIGINT before its child
   * processes, but the watchdog's thread takes it in a little later: on a loaded machine a child
   * that the same Ctrl-C ended (execSync) can end the script first. Then the pending signal is
   * waited for (a child that something else interrupted waits out SETTLE_MS, once).
   */
  function takeAfter(err) {
    if (takePending()) return true;
    if (!contextify || !childInterrupted(err)) return false;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    const until = Date.now() + SETTLE_MS;
    while (Date.now() < until) {
      Atomics.wait(pause, 0, 0, 2);
      if (takePending()) return true;
    }
    return false;
  }

  /** Runs `fn`, a script with breakOnSigint: SIGINT must reach the watchdog meanwhile. */
  function run(fn) {
    return frames.inScript(() => watched(fn));
  }

  function watched(fn) {
    if (!contextify || proc.listenerCount('SIGINT') === 0) return fn();
    // A cell's listener made libuv take SIGINT over: off with the listeners, back with the watchdog.
    const listeners = [];
    const raw = proc.rawListeners('SIGINT');
    for (let i = 0; i < raw.length; i++) if (raw[i] !== own) listeners.push(raw[i]);
    proc.removeAllListeners('SIGINT');
    contextify.stopSigintWatchdog();
    contextify.startSigintWatchdog();
    try {
      return fn();
    } finally {
      for (const listener of listeners) proc.addListener('SIGINT', listener);
      if (listeners.length) proc.addListener('SIGINT', own);
    }
  }

  /** Polls for SIGINT while an async cell awaits; returns the function that stops polling. */
  function watch() {
    if (!contextify) return () => {};
    const timer = timers.setInterval(
      membrane.expose('pollSigint', () => {
        if (takePending()) onSigint();
      }),
      POLL_MS,
    );
    timer.unref();
    return () => timers.clearInterval(timer);
  }

  return { takePending, takeAfter, run, watch };
}

module.exports = { createSigint };
