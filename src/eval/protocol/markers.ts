/**
 * Ordering markers: what a kernel writes into its raw output (fd 1 and fd 2) so the host can put
 * that output in order with its frames and with each other, although the three arrive on three
 * pipes. A marker is `NUL omp-sync:<key>:<kind><n> NUL`: `<key>` the kernel's frame key (so output
 * cannot imitate one), `<n>` a barrier number that grows by one per barrier in each kernel, and
 * `<kind>` `f` when the frame carrying `sync: n` completes the barrier, `r` when the two raw
 * streams alone do. Each barrier's marker is written to both raw streams.
 *
 * A barrier says: everything written before it (on fd 1, fd 2, and the frames before the one that
 * carries it) reaches the host's consumer before anything written after it.
 */

export const SYNC_MARK_START = '\u0000omp-sync:';
export const SYNC_MARK_END = '\u0000';
export type BarrierKind = 'f' | 'r';

export interface SyncMark {
  n: number;
  /** True when a frame with `sync: n` belongs to the barrier. */
  withFrame: boolean;
}

/** The marker of barrier `n` (a runner writes these; the host only reads them). */
export function syncMark(key: string, kind: BarrierKind, n: number): string {
  return `${SYNC_MARK_START}${key}:${kind}${n}${SYNC_MARK_END}`;
}

/** The body between `<key>:` and the closing NUL, or undefined when it is not a marker's. */
export function parseSyncMarkBody(body: string): SyncMark | undefined {
  const match = /^([fr])(\d{1,15})$/.exec(body);
  if (!match) return undefined;
  return { n: Number(match[2]), withFrame: match[1] === 'f' };
}
