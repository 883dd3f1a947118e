/**
 * Work a call left running in a kernel that ends with the call (`omp-eval tool`, the per-call
 * mode): threads and timers whose later output would be lost without a word. `omp-eval run`
 * waits for such work, as `python script.py` and `node script.js` do; a tool call does not (an
 * agent's call must not hang on a server thread), so its result says what was left running:
 * threads and timers (asked of the kernel), and processes its cells started (read from /proc),
 * which the kernel's shutdown stops.
 */

import type { Language } from '../language.js';
import { processesLeft } from '../process/processGroup.js';
import type { CellRequest, CellResult } from './results.js';
import type { Session } from './session.js';
import type { RunOptions } from './types.js';

/**
 * What runs beyond the kernel's own, printed (the check is a silent cell: no result, no count):
 * non-daemon threads; resources keeping Node's loop alive.
 */
const CHECK: Record<Language, string> = {
  py: 'print(", ".join((lambda th: [t.name for t in th.enumerate() if t.is_alive() and not t.daemon and t is not th.main_thread()])(__import__("threading"))))',
  js: 'console.log(__omp_pending__())',
};

const WHAT: Record<Language, string> = { py: 'Python threads', js: 'JavaScript timers and handles' };

/**
 * The notice for work left running in the kernels of `languages`, or undefined when none is.
 * Each check is a cell of its own, bounded by a few seconds.
 */
export async function pendingWorkNotice(
  session: Pick<Session, 'kernelOf'>,
  languages: readonly Language[],
  run: (cells: CellRequest[], options: RunOptions) => Promise<CellResult[]>,
): Promise<string | undefined> {
  const found: string[] = [];
  for (const language of languages) {
    // (a kernel that died or still runs a cell that did not stop is not asked)
    if (session.kernelOf(language)?.state !== 'idle') continue;
    const [result] = await run([{ language, code: CHECK[language] }], {
      defaultTimeout: 5,
      retryOnDeath: false,
      silent: true,
    });
    const names = result?.status === 'ok' ? result.text.trim() : '';
    if (names) found.push(`${WHAT[language]}: ${names.slice(0, 300)}`);
  }
  const processes = languages.flatMap((language) => {
    const kernel = session.kernelOf(language);
    return kernel?.pid !== undefined && kernel.runnerPid !== undefined
      ? processesLeft(kernel.pid, kernel.runnerPid)
      : [];
  });
  if (processes.length) {
    const named = processes.slice(0, 5).map((p) => `${p.command} [pid ${p.pid}]`);
    if (processes.length > 5) named.push(`${processes.length - 5} more`);
    found.push(
      `${processes.length === 1 ? 'a process' : `${processes.length} processes`}: ${named.join(', ')}`,
    );
  }
  if (!found.length) return undefined;
  const stopped = processes.length
    ? `, and the ${processes.length === 1 ? 'process it started is' : 'processes it started are'} stopped with it`
    : '';
  return `Work was still running in the kernel when this call ended (${found.join('; ')}). The kernel ends with the call, so what that work would print or do later is lost${stopped}: wait for it in the cell (join the thread, await the timer, wait for the process), or use kernels that outlive the call (the MCP server keeps them).`;
}
