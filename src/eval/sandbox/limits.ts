/**
 * The limits of a sandboxed kernel and what it starts, each as a step of the one shell in front
 * of the command (sandbox.ts): memory (a cgroup, else RLIMIT_DATA) and processes (a pids cgroup,
 * else RLIMIT_NPROC).
 */
import { createMemoryCgroup, createPidsCgroup, type MemoryCgroup, procsFile } from './cgroup.js';
import { SandboxError } from './settings.js';

const MIB = 1024 * 1024;

/** Processes (threads included) one sandboxed kernel may have at once. */
export const DEFAULT_PIDS_LIMIT = 1024;
/**
 * Where no pids cgroup can be made: RLIMIT_NPROC, which counts every process of the user, not
 * only the kernel's (and root is exempt from it): higher, so that the user's own work goes on.
 */
const RLIMIT_NPROC_FALLBACK = 4096;

/** A shell in front of the command joins a pids cgroup, or sets RLIMIT_NPROC, then runs it. */
export function limitProcesses(max: number): { cgroup?: MemoryCgroup; step: string } {
  const cgroup = createPidsCgroup(max);
  if (cgroup) return { cgroup, step: joinCgroup(cgroup) };
  const limit = Math.max(max, RLIMIT_NPROC_FALLBACK);
  // (dash names the limit -p, bash and busybox -u. A hard limit below it keeps the user's own:
  // the kernel starts all the same.)
  return { step: `{ ulimit -u ${limit} || ulimit -p ${limit} || true; } 2>/dev/null` };
}

/** The shell step that moves the shell (and so what it execs) into `cgroup`. */
function joinCgroup(cgroup: MemoryCgroup): string {
  return `echo $$ > ${shellQuote(procsFile(cgroup))}`;
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export interface MemoryWrap {
  limitMb: number;
  method: 'cgroup' | 'rlimit';
  cgroup?: MemoryCgroup;
  /** The shell step that puts the command under the limit. */
  step: string;
}

/**
 * A shell in front of the command puts it under the limit before it runs: it joins the cgroup
 * (children follow), or sets RLIMIT_DATA (inherited by children). RLIMIT_DATA, not RLIMIT_AS:
 * Node reserves far more address space than it uses and does not start under RLIMIT_AS ≤ 512 MB.
 */
export function limitMemory(limitMb: number, method: 'auto' | 'cgroup' | 'rlimit'): MemoryWrap {
  const cgroup = method === 'rlimit' ? undefined : createMemoryCgroup(limitMb * MIB);
  if (cgroup) return { limitMb, method: 'cgroup', cgroup, step: joinCgroup(cgroup) };
  if (method === 'cgroup') throw new SandboxError('no memory cgroup can be made here for --memory-limit');
  return { limitMb, method: 'rlimit', step: `ulimit -d ${limitMb * 1024}` };
}
