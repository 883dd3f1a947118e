/**
 * Whether a kernel that died ran out of memory: then running the cell again cannot help (a js
 * cell that exhausts its heap would build a second heap as large before it failed again).
 */
import { readFileSync } from 'node:fs';
import type { KernelExit } from '../kernel/types.js';

/** The system's count of processes the out-of-memory killer has killed (Linux), if known. */
export function oomKillCount(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const match = /^oom_kill (\d+)$/m.exec(readFileSync('/proc/vmstat', 'latin1'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

const SIGNS: [RegExp, string][] = [
  [/JavaScript heap out of memory|Reached heap limit/i, 'the JavaScript heap is out of memory'],
  [/\bMemoryError\b/, 'MemoryError'],
  [/std::bad_alloc|Cannot allocate memory|out of memory/i, 'out of memory'],
];

/**
 * Why the kernel's death looks like a lack of memory (its last words on stderr, or a SIGKILL
 * while the out-of-memory killer's count went up since `killsBefore`), else undefined.
 */
export function outOfMemory(exit: KernelExit, killsBefore: number | undefined): string | undefined {
  for (const [pattern, reason] of SIGNS) if (pattern.test(exit.stderrTail)) return reason;
  if (exit.signal === 'SIGKILL' && killsBefore !== undefined) {
    const now = oomKillCount();
    if (now !== undefined && now > killsBefore) return "killed by the system's out-of-memory killer";
  }
  return undefined;
}
