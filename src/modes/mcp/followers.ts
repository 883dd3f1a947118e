/**
 * What a person who follows an MCP session (`omp-eval attach`) may do in it: run a cell in its
 * kernels, queued with the agent's calls (calls stay exclusive), and interrupt the running cell.
 * The agent's next result starts with a note of what the person ran.
 */
import type { FeedController } from '../share/feed.js';
import {
  type CellResult,
  cellLanguage,
  failedResult,
  LANGUAGE_LABEL,
  type Language,
  type Session,
} from './engine.js';
import type { KernelSession } from './kernelSession.js';
import { listVariables } from './variables.js';

/** Characters of the person's code the note quotes. */
const QUOTED = 200;
/** Names the note lists at most. */
const NAMED = 20;

/** What the person's cell did to the kernel's names (undefined: they could not be listed). */
export interface NameChanges {
  changed: string[];
  removed: string[];
}

/** The names of `language`'s kernel with their type and summary; undefined when they cannot be listed. */
export async function namesOf(
  session: Session,
  language: Language,
): Promise<Map<string, string> | undefined> {
  const listed = await listVariables(session, language).catch(() => undefined);
  if (!listed || listed.error || listed.total > listed.variables.length) return undefined;
  return new Map(listed.variables.map((v) => [v.name, `${v.type}\u0000${v.summary}`]));
}

/** Names new or with another type or summary after the cell, and names gone. */
export function nameChanges(before: Map<string, string>, after: Map<string, string>): NameChanges {
  return {
    changed: [...after].filter(([name, value]) => before.get(name) !== value).map(([name]) => name),
    removed: [...before.keys()].filter((name) => !after.has(name)),
  };
}

const listed = (names: string[]) =>
  names.slice(0, NAMED).join(', ') + (names.length > NAMED ? ` and ${names.length - NAMED} more` : '');

function namesSentence(names: NameChanges | undefined): string {
  if (!names) return 'Which names it defined or changed could not be listed.';
  const parts = [
    ...(names.changed.length ? [`It defined or changed ${listed(names.changed)}`] : []),
    ...(names.removed.length ? [`it deleted ${listed(names.removed)}`] : []),
  ];
  return parts.length ? `${parts.join('; ')}.` : 'It defined or changed no names.';
}

/** Who ran the cell, as the note says it. */
const FOLLOWER = 'A person following this session (omp-eval attach)';

/** The note the agent's next result starts with. */
export function personNote(
  language: Language,
  code: string,
  result: CellResult,
  names: NameChanges | undefined,
  who = FOLLOWER,
): string {
  const lines = code.trim().split('\n');
  const first = (lines[0] ?? '').slice(0, QUOTED);
  const more = lines.length > 1 ? ` (and ${lines.length - 1} more line${lines.length > 2 ? 's' : ''})` : '';
  const outcome =
    result.status === 'ok'
      ? 'it ran ok'
      : result.error
        ? `it failed: ${result.error.ename}`
        : `it ended ${result.status}`;
  return `${who} ran a ${LANGUAGE_LABEL[language]} cell in it before this call: \`${first}\`${more}; ${outcome}. ${namesSentence(names)}`;
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
  let names: NameChanges | undefined;
  try {
    if (session.mode === 'per-call')
      throw new Error('the server runs in per-call mode: no kernel persists between calls to run it in');
    const kernels = await session.session();
    const before = kernels.kernelOf(language) ? await namesOf(kernels, language) : new Map<string, string>();
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
    const after = await namesOf(kernels, language);
    names = before && after ? nameChanges(before, after) : undefined;
  } catch (err) {
    result = failedResult({ index: 0, language }, 0, (err as Error).message);
    call.onEvent(0, { kind: 'notice', text: (err as Error).message });
    call.cellDone(result);
    return;
  } finally {
    call.end();
  }
  session.tell(personNote(language, code, result, names));
}
