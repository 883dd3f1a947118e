/**
 * The `variables` tool: each running kernel answers a `variables` request with the user's names
 * (what %whos lists in Python; the cells' globals in JavaScript), with type, summary and shape.
 * Nothing runs as a cell: no execution count, no history, no names left behind. A summary runs
 * user code (a __str__, an inspect hook): one that does not finish within the per-name deadline
 * has its name listed as skipped, and the others are listed.
 */
import type { Language, Session, VariableInfo } from './engine.js';

/** Names reported per kernel; the rest are counted. */
const MAX_VARIABLES = 500;

export interface Variable extends VariableInfo {
  language: Language;
}

export type KernelPresence = 'running' | 'not started' | 'unavailable';

export interface KernelVariables {
  language: Language;
  presence: KernelPresence;
  variables: Variable[];
  total: number;
  error?: string;
}

/**
 * The user's names in one language's kernel of the session (none when it is not running);
 * `nameTimeoutMs`: how long one name's summary may take (the kernel's default otherwise).
 */
export async function listVariables(
  session: Session,
  language: Language,
  nameTimeoutMs?: number,
): Promise<KernelVariables> {
  const kernel = session.kernelOf(language);
  if (!kernel || kernel.state === 'dead')
    return { language, presence: 'not started', variables: [], total: 0 };
  const listed = await kernel.variables(MAX_VARIABLES, undefined, nameTimeoutMs);
  if (listed.error)
    return {
      language,
      presence: 'running',
      variables: [],
      total: 0,
      error: `could not list names: ${listed.error}`,
    };
  const variables = listed.variables.map((v) => ({ ...v, language }));
  return { language, presence: 'running', variables, total: listed.total };
}

/** %whos's table: name, type and summary columns. */
export function variablesTable(variables: Variable[]): string {
  const width = (values: string[], title: string) =>
    Math.max(title.length, ...values.map((v) => v.length)) + 3;
  const nameWidth = width(
    variables.map((v) => v.name),
    'Variable',
  );
  const typeWidth = width(
    variables.map((v) => v.type),
    'Type',
  );
  const rows = variables.map((v) => {
    const shape = v.shape ? ` shape=(${v.shape.join(', ')}${v.shape.length === 1 ? ',' : ''})` : '';
    return `${v.name.padEnd(nameWidth)}${v.type.padEnd(typeWidth)} ${v.summary}${shape}`;
  });
  const header = `${'Variable'.padEnd(nameWidth)}${'Type'.padEnd(typeWidth)} Data/Info`;
  const skipped = variables.filter((v) => v.skipped).map((v) => v.name);
  const note = skipped.length
    ? [`Skipped (making their summary took too long; the values are still defined): ${skipped.join(', ')}`]
    : [];
  return [header, '-'.repeat(nameWidth + typeWidth + 10), ...rows, ...note].join('\n');
}
