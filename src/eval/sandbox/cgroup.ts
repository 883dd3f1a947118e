/**
 * A memory cgroup of a kernel's own, made under the host's own cgroup (v1's memory controller,
 * or v2 where the host's cgroup delegates memory): the limit covers the kernel and every process
 * it starts, and the kernel's out-of-memory kills are counted there.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidExists } from '../process/processGroup.js';

export interface MemoryCgroup {
  dir: string;
  version: 1 | 2;
}

const OWN_PREFIX = 'omp-eval-';
let sequence = 0;

/** This process's cgroup of `controller` (v1's hierarchy of it, or v2's unified one) and its version. */
function ownCgroup(controller: 'memory' | 'pids'): MemoryCgroup | undefined {
  let cgroups: string;
  let mounts: string;
  try {
    cgroups = readFileSync('/proc/self/cgroup', 'utf8');
    mounts = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return undefined;
  }
  const v1Path = cgroups.match(new RegExp(`^\\d+:(?:[^:\\n]*,)?${controller}(?:,[^:\\n]*)?:(.*)$`, 'm'))?.[1];
  const v2Path = cgroups.match(/^0::(.*)$/m)?.[1];
  for (const line of mounts.split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const [, , , root = '/', mountPoint = ''] = before.split(' ');
    const [fsType, , superOptions = ''] = after.split(' ');
    if (fsType === 'cgroup' && v1Path !== undefined && superOptions.split(',').includes(controller))
      return { dir: join(mountPoint, relativeTo(v1Path, root)), version: 1 };
    if (fsType === 'cgroup2' && v2Path !== undefined && v1Path === undefined)
      return { dir: join(mountPoint, relativeTo(v2Path, root)), version: 2 };
  }
  return undefined;
}

function relativeTo(path: string, root: string): string {
  return root !== '/' && path.startsWith(root) ? path.slice(root.length) : path;
}

/** Removes cgroups earlier hosts made and left behind (SIGKILLed hosts); only empty ones go. */
function sweepStale(parent: string): void {
  let entries: string[];
  try {
    entries = readdirSync(parent);
  } catch {
    return;
  }
  for (const entry of entries) {
    const pid = Number(entry.match(/^omp-eval-(\d+)-\d+$/)?.[1]);
    if (!pid || pid === process.pid || pidExists(pid)) continue;
    try {
      rmdirSync(join(parent, entry));
    } catch {
      // still has processes, or not ours to remove
    }
  }
}

/**
 * Makes a cgroup limited to `bytes` (swap included where the kernel accounts it), or returns
 * undefined when none can be made here (no memory controller, no permission, no delegation).
 */
export function createMemoryCgroup(bytes: number): MemoryCgroup | undefined {
  return createCgroup('memory', (dir, version) => {
    if (version === 1) {
      writeFileSync(join(dir, 'memory.limit_in_bytes'), String(bytes));
      tryWrite(join(dir, 'memory.memsw.limit_in_bytes'), String(bytes));
    } else {
      writeFileSync(join(dir, 'memory.max'), String(bytes)); // (throws without delegated memory)
      tryWrite(join(dir, 'memory.swap.max'), '0');
    }
  });
}

/**
 * A cgroup of ours under this process's cgroup of `controller`, set up by `limit` (which throws
 * when it cannot be: the cgroup is removed again); undefined when none can be made here.
 */
function createCgroup(
  controller: 'memory' | 'pids',
  limit: (dir: string, version: 1 | 2) => void,
): MemoryCgroup | undefined {
  const own = ownCgroup(controller);
  if (!own) return undefined;
  sweepStale(own.dir);
  const dir = join(own.dir, `${OWN_PREFIX}${process.pid}-${++sequence}`);
  try {
    mkdirSync(dir);
  } catch {
    return undefined;
  }
  const cgroup: MemoryCgroup = { dir, version: own.version };
  try {
    limit(dir, own.version);
    return cgroup;
  } catch {
    removeCgroupSync(cgroup);
    return undefined;
  }
}

/**
 * A cgroup that lets at most `max` processes (threads included) live in it: a fork bomb in a
 * cell stops there. Undefined when none can be made here (then sandbox.ts falls back to
 * RLIMIT_NPROC, which root is exempt from).
 */
export function createPidsCgroup(max: number): MemoryCgroup | undefined {
  return createCgroup('pids', (dir) => writeFileSync(join(dir, 'pids.max'), String(max)));
}

function tryWrite(path: string, value: string): void {
  try {
    writeFileSync(path, value);
  } catch {
    // swap is not accounted on this kernel
  }
}

/** The file a process writes its pid to, to join the cgroup (its children follow). */
export function procsFile(cgroup: MemoryCgroup): string {
  return join(cgroup.dir, 'cgroup.procs');
}

/** How many processes the out-of-memory killer has killed in the cgroup. */
export function oomKills(cgroup: MemoryCgroup): number {
  const file = cgroup.version === 1 ? 'memory.oom_control' : 'memory.events';
  try {
    const text = readFileSync(join(cgroup.dir, file), 'utf8');
    const kills = text.match(/^oom_kill (\d+)$/m)?.[1];
    if (kills !== undefined) return Number(kills);
    // Kernels before 4.13 do not count kills (v1): the limit was at least hit.
    if (cgroup.version === 1)
      return Number(readFileSync(join(cgroup.dir, 'memory.failcnt'), 'utf8')) > 0 ? 1 : 0;
  } catch {
    // removed already
  }
  return 0;
}

/** Removes the cgroup once empty (now, or false when processes are still in it). */
export function removeCgroupSync(cgroup: MemoryCgroup): boolean {
  if (!existsSync(cgroup.dir)) return true;
  try {
    rmdirSync(cgroup.dir);
    return true;
  } catch {
    return false;
  }
}

/** Removes the cgroup, waiting up to `ms` for the last processes in it to go. */
export async function removeCgroup(cgroup: MemoryCgroup, ms = 2_000): Promise<void> {
  const until = Date.now() + ms;
  while (!removeCgroupSync(cgroup) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
}

/** How a memory limit would be enforced here: a cgroup can be made (and is removed again), or not. */
export function memoryMethodHere(): 'cgroup' | 'rlimit' {
  const probe = createMemoryCgroup(64 * 1024 * 1024);
  if (!probe) return 'rlimit';
  removeCgroupSync(probe);
  return 'cgroup';
}
