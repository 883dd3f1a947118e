/**
 * The end of a local kernel's process, as the kernel client drives and reads it: the stop
 * sequence, why it ended (the reason the host stopped it, a death, the sandbox's memory limit),
 * the tail of its stderr, and what is left to clean up after it (its cells' children, its sandbox).
 */

import { endProcess, reapGroup } from '../process/lifetime.js';
import type { KernelChannel, ProcessEnd } from './channel.js';
import type { KernelExit, KernelExitReason } from './types.js';

/**
 * How the process ended. Every pipe is drained first: what the merge held back reaches its cell,
 * and the stderr tail (an out-of-memory message says why the kernel died) is whole. `reason` is
 * asked after that (the host's reason while it was stopping the process, else `died`); `leftover`
 * hears the start of a frame the end cut off.
 */
export function readExit(
  channel: KernelChannel,
  { code, signal }: ProcessEnd,
  reason: () => KernelExitReason,
  leftover: (text: string) => void,
): KernelExit {
  const tail = channel.finishStreams();
  if (tail?.trim()) leftover(tail.slice(0, 200));
  let why = reason();
  const stderrTail = channel.stderrTail.split('\n').slice(-40).join('\n');
  const memoryLimitMb =
    why === 'died' ? channel.proc.sandbox?.memoryExceeded({ code, signal }, stderrTail) : undefined;
  if (memoryLimitMb) why = 'memory-limit';
  return {
    code,
    signal,
    reason: why,
    stderrTail,
    ...(memoryLimitMb ? { memoryLimitMb } : {}),
  };
}

/**
 * After the exit: a kernel that died on its own may leave its cells' children behind, so its group
 * is reaped (TERM, `graceMs`, KILL); then its sandbox goes.
 */
export function cleanUpAfter(exit: KernelExit, channel: KernelChannel, graceMs: number): Promise<unknown> {
  const reaped =
    exit.reason === 'died' || exit.reason === 'memory-limit'
      ? reapGroup(channel.pid, graceMs, channel.exitedAt)
      : Promise.resolve();
  return reaped.then(() => channel.proc.sandbox?.dispose());
}

/**
 * Stops the process (when `end`: still running; see endProcess for `idle`, `kill` and the grace
 * periods), waits for its exit, then reaps its group and disposes of its sandbox: its temp dir is
 * gone when this resolves.
 */
export async function stopProcess(
  channel: KernelChannel,
  exited: Promise<KernelExit>,
  opts: { end: boolean; idle: boolean; kill: boolean; graceMs: number },
): Promise<KernelExit> {
  if (opts.end) await endProcess(channel, exited, opts);
  const exit = await exited;
  await reapGroup(channel.pid, opts.graceMs, channel.exitedAt);
  await channel.proc.sandbox?.dispose();
  return exit;
}
