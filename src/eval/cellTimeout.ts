/**
 * A cell's timeout in seconds: its default and its bounds. A module of its own, below both the
 * settings (`eval.timeout`) and the executor's watchdog, which reads a cell's own timeout.
 */

export const DEFAULT_TIMEOUT_S = 30;
const MIN_TIMEOUT_S = 1;
const MAX_TIMEOUT_S = 3600;

/** Seconds clamped to 1..3600; undefined means the default. */
export function clampTimeout(seconds: number | undefined, fallback = DEFAULT_TIMEOUT_S): number {
  const s = seconds ?? fallback;
  return Math.min(MAX_TIMEOUT_S, Math.max(MIN_TIMEOUT_S, s));
}
