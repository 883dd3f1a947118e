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

interface ProcessRow {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
  /** When it started, in clock ticks since boot. */
  start: number;
}

/** Live (non-zombie) processes with their ppid, process group, session and start. Linux only. */
function liveProcesses(): ProcessRow[] {
  const found: ProcessRow[] = [];
  for (const entry of readdirSync('/proc')) {
    if (entry.charCodeAt(0) > 57) continue; // not a pid
    const stat = procStat(entry);
    if (!stat || stat[0] === 'Z') continue;
    found.push({
      pid: Number(entry),
      ppid: Number(stat[1]),
      pgrp: Number(stat[2]),
      session: Number(stat[3]),
      start: Number(stat[19]),
    });
  }
  return found;
}

/** Live processes whose process group or session is `id`. Linux only. */
function members(id: number): number[] {
  return memberRows(id).map((p) => p.pid);
}

function memberRows(id: number): ProcessRow[] {
  return liveProcesses().filter((p) => p.pgrp === id || p.session === id);
}

/**
 * Clock ticks since boot, now, in the unit of /proc/<pid>/stat's start time (USER_HZ, which Linux
 * fixes at 100 on every common architecture), with one tick to spare; Linux only.
 */
export function bootTicks(): number | undefined {
  if (!linux) return undefined;
  try {
    return Math.round(Number.parseFloat(readFileSync('/proc/uptime', 'utf8')) * 100) + 1;
  } catch {
    return undefined;
  }
}

/**
 * Whether the group or session `id` is still the one whose leader ended at `endedAt` (bootTicks()
 * then): once the leader was reaped, its id is free again when nothing else of its group is left,
 * and a new process (another program's, in a session of its own) may have it. Such a group has
 * no member that started by `endedAt`. Without `endedAt`, or off Linux: true.
 */
export function sameGroup(id: number, endedAt: number | undefined): boolean {
  if (endedAt === undefined || !linux) return true;
  return memberRows(id).some((p) => p.start <= endedAt);
}

/**
 * Sends `signal` to the group `pgid` and, on Linux, to every process of the session `pgid`
 * (children that moved to groups of their own). False when nothing received it.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0, endedAt?: number): boolean {
  // (a leader that ended at `endedAt`: its id may be another group's by now)
  if (!sameGroup(pgid, endedAt)) return false;
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

/** True while a process with this pid exists (a zombie too, or another user's). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
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
  let count = 0;
  for (const next of descendantsOf(pid, liveProcesses())) {
    try {
      process.kill(next, signal);
      count++;
    } catch {
      // gone already
    }
  }
  return count;
}

/** The descendants of `pid` among `rows`, parents before their children. */
function descendantsOf(pid: number, rows: ProcessRow[]): number[] {
  const children = new Map<number, number[]>();
  for (const p of rows) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const found = [...(children.get(pid) ?? [])];
  for (let i = 0; i < found.length; i++) found.push(...(children.get(found[i] as number) ?? []));
  return found;
}

/** A process a kernel's cells started and left running. */
export interface LeftProcess {
  pid: number;
  /** Its command line (at most 80 characters), or its name. */
  command: string;
}

function commandOf(pid: number): string {
  let command = '';
  try {
    command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').replaceAll('\0', ' ');
  } catch {
    // gone meanwhile
  }
  if (!command) {
    try {
      command = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      command = '?';
    }
  }
  return command;
}

const clipped = (command: string) => (command.length > 80 ? `${command.slice(0, 79)}…` : command);

/**
 * The live processes that a kernel's shutdown will stop besides the kernel itself (Linux; else
 * none): those of its group and session (`groupId`, the process spawned) or, when the kernel runs
 * inside a wrapper (`runnerPid` is not `groupId`: bwrap, whose process namespace ends with it),
 * every descendant of the wrapper; less the runner and the wrapper's own processes above it. A
 * process the cells moved into a session of its own outside a wrapper outlives the kernel and is
 * not one of them.
 */
export function processesLeft(groupId: number, runnerPid: number): LeftProcess[] {
  if (!linux) return [];
  const rows = liveProcesses();
  const parentOf = new Map(rows.map((p) => [p.pid, p.ppid]));
  const own = new Set<number>([groupId]);
  for (let pid: number | undefined = runnerPid; pid && pid > 1 && !own.has(pid); pid = parentOf.get(pid))
    own.add(pid);
  const left =
    runnerPid === groupId
      ? rows.filter((p) => p.pgrp === groupId || p.session === groupId).map((p) => p.pid)
      : descendantsOf(groupId, rows);
  return left
    .filter((pid) => !own.has(pid))
    .map((pid) => ({ pid, command: commandOf(pid) }))
    .filter((p) => !HELPERS.test(p.command))
    .map((p) => ({ pid: p.pid, command: clipped(p.command) }));
}

/** Python's multiprocessing helpers (its resource tracker, its fork server): the library's, not the cells'. */
const HELPERS = /from multiprocessing\.(resource_tracker|forkserver) import main/;
