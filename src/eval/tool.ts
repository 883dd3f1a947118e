/**
 * The agent-facing `eval` tool: validates `{cells: [...]}`, checks which backends are available,
 * runs the cells through the executor and renders the text an agent reads.
 */
import type { Executor } from './executor/registry.js';
import {
  baseOf,
  type CellRequest,
  type CellResult,
  failedResult,
  skippedResult,
} from './executor/results.js';
import type { Session } from './executor/session.js';
import { ExecutorError, type RunOptions, type SessionOptions } from './executor/types.js';
import { toolInputProblems } from './schemas/index.js';
import { backendAvailability } from './settings.js';

export interface EvalToolParams {
  cells: CellRequest[];
}

export interface EvalToolResult {
  /** What the agent reads. */
  text: string;
  isError: boolean;
  cells: CellResult[];
}

export class ToolInputError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid eval tool input:\n${problems.map((p) => `- ${p}`).join('\n')}`);
    this.name = 'ToolInputError';
  }
}

/** Checks the tool input against its schema, listing every problem; returns the typed params. */
export function validateToolInput(input: unknown): EvalToolParams {
  const problems = toolInputProblems(input);
  if (problems.length) throw new ToolInputError(problems);
  return input as EvalToolParams;
}

function cellHeader(cell: CellResult, total: number): string {
  return `[${cell.index + 1}/${total}]${cell.title ? ` ${cell.title}` : ''}`;
}

/** The text an agent reads: each cell's output (prefixed when there are several), then the verdict. */
export function renderToolText(cells: CellResult[]): string {
  const parts: string[] = [];
  const total = cells.length;
  for (const cell of cells) {
    if (cell.status === 'skipped') continue;
    const lines: string[] = [];
    if (total > 1) lines.push(cellHeader(cell, total));
    const body = cell.text.replace(/\n+$/, '');
    if (body) lines.push(body);
    for (const image of cell.images)
      lines.push(`[image ${image.width ?? '?'}×${image.height ?? '?'} ${image.mime.slice(6)}]`);
    for (const notice of cell.notices) if (!cell.text.includes(notice)) lines.push(`[${notice}]`);
    if (cell.truncation)
      lines.push(
        `[output truncated: ${cell.truncation.totalChars} chars in all; full output: ${cell.truncation.artifact}]`,
      );
    if (total === 1 && !body && lines.length === 0 && cell.status === 'ok') lines.push('(no output)');
    parts.push(lines.join('\n'));
  }
  const failed = cells.find((c) => c.status !== 'ok' && c.status !== 'skipped');
  if (failed) {
    const n = failed.index + 1;
    const what = failed.timedOut ? 'timed out' : failed.status === 'cancelled' ? 'was cancelled' : 'failed';
    const kernelGone = failed.kernelKilled || failed.retried || failed.error?.ename === 'KernelDied';
    const code =
      failed.error?.ename === 'KernelDied'
        ? `the kernel exited, exit code ${failed.exitCode}`
        : `exit code ${failed.exitCode ?? 'unknown'}`;
    const earlier =
      failed.index === 0
        ? ''
        : kernelGone
          ? ' Earlier cells succeeded, but the kernel was restarted: their state is gone.'
          : ' Earlier cells succeeded—their state persists.';
    const notRun = cells.length - n;
    const later =
      notRun === 1
        ? ` Cell ${n + 1} was not run.`
        : notRun > 1
          ? ` Cells ${n + 1}-${cells.length} were not run.`
          : '';
    const fix = failed.status === 'error' && !failed.timedOut ? ` Fix only cell ${n}.` : '';
    parts.push(`Cell ${n} ${what} (${code}).${earlier}${later}${fix}`);
  } else if (cells.length && cells.every((c) => c.status === 'skipped')) {
    parts.push('No cell ran: the call was cancelled before it started.');
  }
  return parts.filter(Boolean).join('\n\n');
}

export interface EvalToolContext extends SessionOptions, RunOptions {
  executor: Executor;
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs the eval tool. Input problems throw ToolInputError; everything else is in the result. In
 * `session` mode the kernel is retained by the executor for (id, cwd, interpreter), so state
 * persists from call to call until the executor is disposed.
 */
export async function runEvalTool(input: unknown, ctx: EvalToolContext): Promise<EvalToolResult> {
  const params = validateToolInput(input);
  const env = ctx.env ?? process.env;
  const available = backendAvailability(ctx.executor.settings, env);
  if (!available.py && !available.js) {
    const text = 'The eval tool is disabled: both eval.py and eval.js are off (or PI_PY=0 and PI_JS=0).';
    return { text, isError: true, cells: [] };
  }
  const hasPy = params.cells.some((c) => c.language === 'py');
  let pyProblem: string | undefined;
  if (!available.py)
    pyProblem = 'The Python backend is disabled (eval.py is false or PI_PY=0); use a js cell.';
  else if (hasPy && env.PI_PYTHON_SKIP_CHECK !== '1') {
    try {
      await ctx.executor.resolvePython(ctx.cwd ?? process.cwd());
    } catch (err) {
      pyProblem = `The Python backend is not available: ${(err as Error).message}`;
    }
  }
  const jsProblem = available.js
    ? undefined
    : 'The JavaScript backend is disabled (eval.js is false or PI_JS=0); use a py cell.';
  const problemOf = (cell: CellRequest) => (cell.language === 'js' ? jsProblem : pyProblem);
  // The first cell whose backend is unavailable fails where it stands; the cells before it run.
  const blocked = params.cells.findIndex((c) => problemOf(c) !== undefined);
  const runnable = blocked === -1 ? params.cells : params.cells.slice(0, blocked);
  let results: CellResult[] = [];
  const blockedMessage = blocked === -1 ? undefined : problemOf(params.cells[blocked] as CellRequest);
  if (runnable.length) {
    const mode = ctx.mode ?? ctx.executor.settings['python.kernelMode'];
    let session: Session;
    try {
      // Without Python, js cells still run; a py cell then fails with the availability error
      // (the preflight above reports it first unless PI_PYTHON_SKIP_CHECK skipped it).
      session = await ctx.executor.session({ ...ctx, retain: mode === 'session', requirePython: false });
    } catch (err) {
      if (err instanceof ExecutorError) return { text: err.message, isError: true, cells: [] };
      throw err;
    }
    try {
      results = await session.run(runnable, ctx);
    } finally {
      if (mode === 'per-call') await session.release();
    }
  }
  const failAt = blocked === -1 ? results.length : Math.min(blocked, results.length);
  if (blockedMessage !== undefined && results.every((r) => r.status === 'ok')) {
    const cell = params.cells[failAt] as CellRequest;
    results.push(failedResult(baseOf(failAt, cell), 0, blockedMessage, { ename: 'BackendUnavailable' }));
  }
  for (let i = results.length; i < params.cells.length; i++)
    results.push(skippedResult(i, params.cells[i] as CellRequest));
  return { text: renderToolText(results), isError: results.some((r) => r.status !== 'ok'), cells: results };
}
