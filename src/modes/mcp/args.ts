/**
 * Checking tool arguments with messages a model can act on. The eval tool's cells go through the
 * same validator as `omp-eval tool`; `session` and `language` are checked here.
 */
import { type EvalToolParams, type Language, ToolInputError, validateToolInput } from './engine.js';
import { DEFAULT_SESSION, SESSION_NAME } from './tools.js';

export class ArgumentError extends Error {
  constructor(
    readonly tool: string,
    readonly problems: string[],
  ) {
    super(`Invalid arguments for ${tool}:\n${problems.map((p) => `- ${p}`).join('\n')}`);
    this.name = 'ArgumentError';
  }
}

const asObject = (tool: string, args: unknown): Record<string, unknown> => {
  if (args === undefined || args === null) return {};
  if (typeof args !== 'object' || Array.isArray(args))
    throw new ArgumentError(tool, ['the arguments must be an object']);
  return args as Record<string, unknown>;
};

function sessionProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && SESSION_NAME.test(value)) return undefined;
  return `"session" must be a name of 1-64 letters, digits, "_", "-" or ".", got ${JSON.stringify(value)}`;
}

/** The shortest cell timeout, in seconds: a shorter one (0 too) is raised to it. */
const MIN_TIMEOUT_S = 1;

/**
 * The session name and the cells of an eval call, and notes for the model on what was changed:
 * a timeout below 1 s is clamped to 1 s as the tool's schema says (0 was refused).
 */
export function parseEvalArgs(args: unknown): { session: string; params: EvalToolParams; notes: string[] } {
  const { session, ...rest } = asObject('eval', args);
  const problems: string[] = [];
  const bad = sessionProblem(session);
  if (bad) problems.push(bad);
  let params: EvalToolParams | undefined;
  try {
    params = validateToolInput(rest);
  } catch (err) {
    if (!(err instanceof ToolInputError)) throw err;
    problems.push(
      ...err.problems.map((p) => p.replace('(only "cells" is accepted)', '(accepted: "cells", "session")')),
    );
  }
  if (problems.length || !params) throw new ArgumentError('eval', problems);
  const notes: string[] = [];
  const cells = params.cells.map((cell, i) => {
    if (cell.timeout === undefined || cell.timeout >= MIN_TIMEOUT_S) return cell;
    notes.push(
      `cell ${i + 1}: "timeout": ${cell.timeout} is below the shortest timeout, so the cell ran with ${MIN_TIMEOUT_S} s.`,
    );
    return { ...cell, timeout: MIN_TIMEOUT_S };
  });
  return { session: (session as string | undefined) ?? DEFAULT_SESSION, params: { ...params, cells }, notes };
}

/** The session and languages of a restart or variables call (`language`: py, js or both). */
export function parseKernelArgs(tool: string, args: unknown): { session: string; languages: Language[] } {
  const obj = asObject(tool, args);
  const problems: string[] = [];
  for (const key of Object.keys(obj)) {
    if (key !== 'language' && key !== 'session')
      problems.push(`unknown field "${key}" (accepted: "language", "session")`);
  }
  const bad = sessionProblem(obj.session);
  if (bad) problems.push(bad);
  const language = obj.language ?? 'both';
  if (language !== 'py' && language !== 'js' && language !== 'both')
    problems.push(`"language" must be "py", "js" or "both", got ${JSON.stringify(language)}`);
  if (problems.length) throw new ArgumentError(tool, problems);
  return {
    session: (obj.session as string | undefined) ?? DEFAULT_SESSION,
    languages: language === 'both' ? ['py', 'js'] : [language as Language],
  };
}
