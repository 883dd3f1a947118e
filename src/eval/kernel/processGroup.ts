/**
 * Process-group helpers. A kernel runs in its own session and process group (spawned detached),
 * so one signal can reach everything it started, and shutdown can make sure nothing outlives it.
 * Cells may put children in process groups of their own (os.system and shell commands do, so an
 * interrupt can stop them); on Linux those are still found through the kernel's session.
 */
import { readdirSync, readFileSync } from 'node:fs';

const linux = process.platform === 'linux';

/** state, ppid, pgrp, session… of /proc/<pid>/stat (the fields after the command name). */
function procStat(pid: string | number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Live (non-zombie) processes with their ppid, process group and session. Linux only. */
function liveProcesses(): { pid: number; ppid: number; pgrp: number; session: number }[] {
  const found: { pid: number; ppid: number; pgrp: number; session: number }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (entry.charCodeAt(0) > 57) continue; // not a pid
    const stat = procStat(entry);
    if (!stat || stat[0] === 'Z') continue;
    found.push({
      pid: Number(entry),
      ppid: Number(stat[1]),
      pgrp: Number(stat[2]),
      session: Number(stat[3]),
    });
  }
  return found;
}

/** Live processes whose process group or session is `id`. Linux only. */
function members(id: number): number[] {
  return liveProcesses()
    .filter((p) => p.pgrp === id || p.session === id)
    .map((p) => p.pid);
}

/**
 * Sends `signal` to the group `pgid` and, on Linux, to every process of the session `pgid`
 * (children that moved to groups of their own). False when nothing received it.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  let delivered = false;
  try {
    process.kill(process.platform === 'win32' ? pgid : -pgid, signal);
    delivered = true;
  } catch {
    // ESRCH: the group itself is empty
  }
  if (linux && signal !== 0) {
    for (const pid of members(pgid)) {
      try {
        process.kill(pid, signal);
        delivered = true;
      } catch {
        // gone meanwhile
      }
    }
  }
  return delivered;
}

/** True while the process exists and is not a zombie waiting to be reaped. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (!linux) return true;
  const stat = procStat(pid);
  return stat !== undefined && stat[0] !== 'Z';
}

/**
 * True while a live process is in the group (or, on Linux, the session). Zombies do not count:
 * where nothing reaps orphans (a container whose init does not), they linger without running.
 */
export function groupAlive(pgid: number): boolean {
  if (process.platform === 'win32') return false;
  if (!linux) return signalGroup(pgid, 0);
  return members(pgid).length > 0;
}

/**
 * Sends `signal` to the live descendants of `pid` (Linux; elsewhere nothing), as a terminal's
 * Ctrl-C reaches a whole foreground job: a js kernel blocked in execSync() cannot act on SIGINT
 * itself, the command it waits for can.
 */
export function signalDescendants(pid: number, signal: NodeJS.Signals): number {
  if (!linux) return 0;
  const children = new Map<number, number[]>();
  for (const p of liveProcesses()) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  let count = 0;
  const queue = [...(children.get(pid) ?? [])];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    queue.push(...(children.get(next) ?? []));
    try {
      process.kill(next, signal);
      count++;
    } catch {
      // gone already
    }
  }
  return count;
}
