/**
 * How long a kernel lives: never longer than the host (an exit hook and a host guard), and when
 * it ends, nothing it started lives on (the group is reaped).
 */
import { type ExitRequest, exitRequest } from '../protocol/index.js';
import { type GuardedGroup, guardGroup } from './hostGuard.js';
import { groupAlive, sameGroup, signalGroup } from './processGroup.js';

/** What the exit hook needs of a kernel: kill it now, synchronously. */
export interface Killable {
  killNow(): void;
}

/** Kernels whose process has not ended: killed with their groups if the host exits first. */
const live = new Set<Killable>();
let exitHookInstalled = false;

/** Registers a live kernel; the returned function unregisters it (at its exit). */
export function trackLive(kernel: Killable): () => void {
  live.add(kernel);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // 'exit' handlers must be synchronous: signals are.
    process.on('exit', () => {
      for (const k of live) k.killNow();
    });
  }
  return () => {
    live.delete(kernel);
  };
}

/**
 * The kernel must not outlive this host, even when the host is SIGKILLed: the host guard
 * (hostGuard.ts) kills its group, session and descendants once the host is gone. Stop guarding
 * with stopHostGuard when the kernel ends.
 */
export function startHostGuard(pid: number | undefined): GuardedGroup | undefined {
  return guardGroup(pid, { soon: true });
}

export function stopHostGuard(guarded: GuardedGroup | undefined): void {
  guarded?.release();
}

// Referenced timers: an unreferenced one awaited at the end of a program lets Node exit with the
// await unsettled (exit code 13).
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Ends what a kernel left in its group (children of cells) after it exited: TERM, then KILL. */
export async function reapGroup(pgid: number | undefined, graceMs: number, endedAt?: number): Promise<void> {
  // (a group whose id is another program's by now is not ours to wait for)
  if (!pgid || !groupAlive(pgid) || !sameGroup(pgid, endedAt)) return;
  signalGroup(pgid, 'SIGTERM', endedAt);
  const until = Date.now() + graceMs;
  while (groupAlive(pgid) && Date.now() < until) await delay(20);
  signalGroup(pgid, 'SIGKILL', endedAt);
}

/** True when `exited` settles within `ms`; the timer does not outlive the answer. */
function settlesWithin(exited: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void exited.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** What endProcess needs of a kernel's channel. */
export interface Endable {
  write(request: ExitRequest): void;
  endRequests(): void;
  killGroup(signal: NodeJS.Signals): boolean;
}

/**
 * Ends a kernel process: an idle one is asked (`exit` request, requests closed) and given a grace
 * period; then SIGTERM to its group, another grace period, then SIGKILL. `kill` skips to SIGKILL.
 */
export async function endProcess(
  channel: Endable,
  exited: Promise<unknown>,
  opts: { idle: boolean; kill: boolean; graceMs: number },
): Promise<void> {
  if (opts.kill) {
    channel.killGroup('SIGKILL');
    return;
  }
  if (opts.idle) channel.write(exitRequest());
  channel.endRequests();
  let done = opts.idle && (await settlesWithin(exited, opts.graceMs));
  if (!done) {
    channel.killGroup('SIGTERM');
    done = await settlesWithin(exited, opts.graceMs);
  }
  if (!done) channel.killGroup('SIGKILL');
}
