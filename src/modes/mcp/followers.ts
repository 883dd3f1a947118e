/**
 * What a person who follows an MCP session (`omp-eval attach`) may do in it: run a cell in its
 * kernels, queued with the agent's calls (calls stay exclusive), and interrupt the running cell.
 * The agent's next result starts with a note of what the person ran.
 */
import type { FeedController } from '../share/feed.js';
import { type CellResult, cellLanguage, failedResult, type Language } from './engine.js';
import type { KernelSession } from './kernelSession.js';

const LABEL: Record<Language, string> = { py: 'Python', js: 'JavaScript' };
/** Characters of the person's code the note quotes. */
const QUOTED = 200;

/** The note the agent's next result starts with. */
export function personNote(language: Language, code: string, result: CellResult): string {
  const lines = code.trim().split('\n');
  const first = (lines[0] ?? '').slice(0, QUOTED);
  const more = lines.length > 1 ? ` (and ${lines.length - 1} more line${lines.length > 2 ? 's' : ''})` : '';
  const outcome =
    result.status === 'ok'
      ? 'it ran ok'
      : result.error
        ? `it failed: ${result.error.ename}`
        : `it ended ${result.status}`;
  return `A person following this session (omp-eval attach) ran a ${LABEL[language]} cell in it before this call: \`${first}\`${more}; ${outcome}. Names it defined or changed are now in the kernel.`;
}

export function followerController(session: KernelSession): FeedController {
  return {
    run: (code, ref) => session.enqueue(() => runPersonCell(session, code, ref)),
    interrupt: () => session.interruptForPerson(),
  };
}

async function runPersonCell(session: KernelSession, text: string, ref: string): Promise<void> {
  const { code, language } = cellLanguage(text, 'py');
  const call = session.feed.callStarted([{ index: 0, language, code }], { ref });
  let result: CellResult;
  try {
    if (session.mode === 'per-call')
      throw new Error('the server runs in per-call mode: no kernel persists between calls to run it in');
    const kernels = await session.session();
    [result = failedResult({ index: 0, language }, 0, 'the cell did not run')] = await kernels.run(
      [{ code, language }],
      {
        onEvent: (index, event) => call.onEvent(index, event),
        onCellDone: (cell) => call.cellDone(cell),
        collectOutput: false,
        retryOnDeath: false,
        defaultTimeout: null,
      },
    );
  } catch (err) {
    result = failedResult({ index: 0, language }, 0, (err as Error).message);
    call.onEvent(0, { kind: 'notice', text: (err as Error).message });
    call.cellDone(result);
    return;
  } finally {
    call.end();
  }
  session.tell(personNote(language, code, result));
}
