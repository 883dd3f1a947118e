/**
 * Process-group helpers. A kernel runs in its own group so that one signal reaches the cell's
 * children too, and so that shutdown can make sure none of them outlive it.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Sends `signal` to every process in the group; false when the group is empty (ESRCH). */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(process.platform === 'win32' ? pgid : -pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** The state letter of /proc/<pid>/stat and the fields after it, or undefined when unreadable. */
function procStat(pid: string | number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** True while the process exists and is not a zombie waiting to be reaped. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  const stat = procStat(pid);
  return stat !== undefined && stat[0] !== 'Z';
}

/**
 * True while a live process is in the group. Zombies do not count: where nothing reaps orphans
 * (a container whose init does not), they linger without running.
 */
export function groupAlive(pgid: number): boolean {
  if (process.platform === 'win32' || !signalGroup(pgid, 0)) return false;
  if (process.platform !== 'linux') return true;
  for (const entry of readdirSync('/proc')) {
    if (entry.charCodeAt(0) > 57) continue; // not a pid
    const stat = procStat(entry);
    if (stat && Number(stat[2]) === pgid && stat[0] !== 'Z') return true;
  }
  return false;
}
