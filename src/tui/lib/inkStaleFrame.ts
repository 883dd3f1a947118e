/**
 * A workaround for Ink 6.8: a frame of the live region that Ink's output throttle holds back can be
 * written *after* a newer frame that Ink wrote at once because <Static> output came with it. The
 * terminal then shows the older frame (a keystroke already undone, say) until something else
 * changes, since Ink believes the newer one is on screen. Ink clears the live region before every
 * such write; dropping the held-back frame at that point keeps the newest frame on screen.
 *
 * Ink does not export its instances, so this reaches them by file: when the internals are not
 * shaped as expected (another Ink version), it does nothing.
 */
interface InkInternals {
  log?: { clear?: () => void };
  throttledLog?: { cancel?: () => void };
}

export async function dropStaleFrames(stdout: NodeJS.WriteStream): Promise<boolean> {
  try {
    const entry = import.meta.resolve('ink');
    const { default: instances } = (await import(new URL('./instances.js', entry).href)) as {
      default: WeakMap<object, InkInternals>;
    };
    const ink = instances.get(stdout);
    const log = ink?.log;
    const clear = log?.clear;
    const throttled = ink?.throttledLog;
    if (!log || typeof clear !== 'function' || typeof throttled?.cancel !== 'function') return false;
    log.clear = () => {
      throttled.cancel?.();
      clear.call(log);
    };
    return true;
  } catch {
    return false;
  }
}
