/**
 * Work a call left running in a kernel that ends with the call (`omp-eval tool`, the per-call
 * mode): threads and timers whose later output would be lost without a word. `omp-eval run`
 * waits for such work, as `python script.py` and `node script.js` do; a tool call does not (an
 * agent's call must not hang on a server thread), so its result says what was left running.
 */
import type { KernelLanguage } from '../kernel/types.js';
import type { Session } from './session.js';

/**
 * What runs beyond the kernel's own, as a string (the cell's result): non-daemon threads;
 * resources keeping Node's loop alive.
 */
const CHECK: Record<KernelLanguage, string> = {
  py: '", ".join((lambda th: [t.name for t in th.enumerate() if t.is_alive() and not t.daemon and t is not th.main_thread()])(__import__("threading")))',
  js: '__omp_pending__()',
};

/** The string a result shows quoted (`'poller'` in both languages' reprs). */
const unquoted = (text: string) => /^(['"])(.*)\1$/s.exec(text.trim())?.[2] ?? text.trim();

const WHAT: Record<KernelLanguage, string> = { py: 'Python threads', js: 'JavaScript timers and handles' };

/**
 * The notice for work left running in the kernels of `languages`, or undefined when none is.
 * Each check is a cell of its own, bounded by a few seconds.
 */
export async function pendingWorkNotice(
  session: Session,
  languages: readonly KernelLanguage[],
): Promise<string | undefined> {
  const found: string[] = [];
  for (const language of languages) {
    // (a kernel that died or still runs a cell that did not stop is not asked)
    if (session.kernelOf(language)?.state !== 'idle') continue;
    const [result] = await session.run([{ language, code: CHECK[language] }], {
      defaultTimeout: 5,
      retryOnDeath: false,
    });
    const names = result?.status === 'ok' ? unquoted(result.text) : '';
    if (names) found.push(`${WHAT[language]}: ${names.slice(0, 300)}`);
  }
  if (!found.length) return undefined;
  return `Work was still running in the kernel when this call ended (${found.join('; ')}). The kernel ends with the call, so what that work would print or do later is lost: wait for it in the cell (join the thread, await the timer), or use kernels that outlive the call (the MCP server keeps them).`;
}
