/**
 * The agent-facing `eval` tool: validates `{cells: [...]}`, checks which backends are available,
 * runs the cells through the executor and renders the text an agent reads.
 */

import { pendingWorkNotice } from './executor/pending.js';
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
import { LANGUAGE_LABEL } from './kernel/types.js';
import { DEFAULT_SINK_LIMITS, OutputSink, type SinkLimits } from './output/outputSink.js';
import { oneLine, plainText } from './output/text.js';
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
  return `[${cell.index + 1}/${total}]${cell.title ? ` ${oneLine(cell.title)}` : ''}`;
}

/** One cell's part of the text: its output, images, notices, and where its full output is. */
function cellPart(cell: CellResult, total: number): string {
  const lines: string[] = [];
  if (total > 1) lines.push(cellHeader(cell, total));
  if (cell.background)
    lines.push(
      "[output of earlier cells' threads or timers, written outside any cell:]",
      cell.background.replace(/\n+$/, ''),
      '[end of that output]',
    );
  const body = cell.text.replace(/\n+$/, '');
  if (body) lines.push(body);
  for (const notice of cell.notices) if (!cell.text.includes(notice)) lines.push(`[${plainText(notice)}]`);
  if (cell.truncation)
    lines.push(
      `[output truncated: ${cell.truncation.totalChars} chars in all; ${cell.truncation.fullOutput}]`,
    );
  if (total === 1 && lines.length === 0 && cell.status === 'ok') lines.push('(no output)');
  return lines.join('\n');
}

/** Errors no change to the cell's code can fix. */
const UNAVAILABLE = new Set(['BackendUnavailable', 'EvalError']);

/** What the text says about the state of the cells before the one that failed. */
function earlierState(failed: CellResult, cells: CellResult[], endsWithCall: boolean): string {
  if (failed.index === 0) return '';
  const label = LANGUAGE_LABEL[failed.language];
  const kernelGone = failed.kernelKilled || failed.retried || failed.error?.ename === 'KernelDied';
  if (kernelGone)
    return ` Earlier cells succeeded, but the ${label} kernel was restarted: the ${label} state they made is gone.`;
  const reset = cells
    .slice(1, failed.index + 1)
    .filter((c) => c.reset && c.status !== 'skipped')
    .at(-1);
  if (reset) {
    const which = reset === failed ? 'this cell' : `cell ${reset.index + 1}`;
    return ` Earlier cells succeeded, but ${which} restarted the ${LANGUAGE_LABEL[reset.language]} kernel (reset: true): the ${LANGUAGE_LABEL[reset.language]} state of the cells before it is gone.`;
  }
  // (`omp-eval tool`, per-call mode: the kernels, and what the cells made, end with the call.)
  if (endsWithCall) return ' Earlier cells succeeded, but their state ends with this call.';
  return ' Earlier cells succeeded—their state persists.';
}

/** The closing verdict on the cell that did not end ok. */
function verdict(failed: CellResult, cells: CellResult[], endsWithCall: boolean): string {
  const n = failed.index + 1;
  const what = failed.timedOut ? 'timed out' : failed.status === 'cancelled' ? 'was cancelled' : 'failed';
  const code =
    failed.error?.ename === 'KernelDied'
      ? // (a kernel's own exit code 0 is the cell's 1: then its notice says how it exited)
        `the kernel exited${failed.exitCode === 1 ? '' : `, exit code ${failed.exitCode}`}`
      : `exit code ${failed.exitCode ?? 'unknown'}`;
  const notRun = cells.length - n;
  const later =
    notRun === 1
      ? ` Cell ${n + 1} was not run.`
      : notRun > 1
        ? ` Cells ${n + 1}-${cells.length} were not run.`
        : '';
  // "Fix only this cell" holds only when the cell's own code failed in a kernel that kept its state.
  const ownError =
    failed.status === 'error' &&
    !failed.timedOut &&
    !failed.retried &&
    !failed.kernelKilled &&
    !UNAVAILABLE.has(failed.error?.ename ?? '') &&
    failed.error?.ename !== 'KernelDied';
  // (When the state ends with the call, the earlier cells have to come again with the fix.)
  const fix = !ownError
    ? ''
    : endsWithCall && n > 1
      ? ` Fix cell ${n} and send the cells again.`
      : ` Fix only cell ${n}.`;
  return `Cell ${n} ${what} (${code}).${earlierState(failed, cells, endsWithCall)}${later}${fix}`;
}

/**
 * The text an agent reads: each cell's output (prefixed when there are several), then the verdict.
 * `endsWithCall`: the kernels end with the call (`omp-eval tool`, per-call mode), and so does state.
 */
export function renderToolText(cells: CellResult[], endsWithCall = false): string {
  const parts: string[] = [];
  for (const cell of cells) if (cell.status !== 'skipped') parts.push(cellPart(cell, cells.length));
  const failed = cells.find((c) => c.status !== 'ok' && c.status !== 'skipped');
  if (failed) parts.push(verdict(failed, cells, endsWithCall));
  else if (cells.length && cells.every((c) => c.status === 'skipped'))
    parts.push('No cell ran: the call was cancelled before it started.');
  return clampText(parts.filter(Boolean).join('\n\n'));
}

/** The whole text's budget (each cell's output is within its share already; this bounds the rest). */
export const TOOL_TEXT_CHARS = 60_000;

/** A text over the budget: its head and tail, and all of it in an artifact. */
function clampText(text: string): string {
  if (text.length <= TOOL_TEXT_CHARS) return text;
  const sink = new OutputSink({ headChars: TOOL_TEXT_CHARS * 0.4, tailChars: TOOL_TEXT_CHARS * 0.6 });
  sink.push(text);
  sink.end();
  return sink.text;
}

/** Each cell's output limits in a call of `count` cells: a share of the budget, so the call's text stays within it. */
export function toolSinkLimits(count: number): Partial<SinkLimits> {
  const share = (chars: number, floor: number) => Math.max(floor, Math.floor(chars / Math.max(1, count)));
  return {
    headChars: share(DEFAULT_SINK_LIMITS.headChars, 2_000),
    tailChars: share(DEFAULT_SINK_LIMITS.tailChars, 3_000),
  };
}

export interface EvalToolContext extends SessionOptions, RunOptions {
  executor: Executor;
  env?: NodeJS.ProcessEnv;
  /**
   * The kernels end with this call (`omp-eval tool`), as in the per-call mode: work the cells left
   * running is reported in the last cell's notices.
   */
  kernelsEndWithCall?: boolean;
  /**
   * The retained session to run in, made by an earlier call (the MCP server's): used as it is, its
   * interpreter not resolved again (that probes the interpreter: milliseconds a call).
   */
  session?: Session;
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
  else if (hasPy && env.PI_PYTHON_SKIP_CHECK !== '1' && !ctx.session?.python) {
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
  const mode = ctx.session?.mode ?? ctx.mode ?? ctx.executor.settings['python.kernelMode'];
  const endsWithCall = mode === 'per-call' || ctx.kernelsEndWithCall === true;
  const blockedMessage = blocked === -1 ? undefined : problemOf(params.cells[blocked] as CellRequest);
  if (runnable.length) {
    let session: Session;
    try {
      // Without Python, js cells still run; a py cell then fails with the availability error
      // (the preflight above reports it first unless PI_PYTHON_SKIP_CHECK skipped it).
      session =
        ctx.session ??
        (await ctx.executor.session({ ...ctx, retain: mode === 'session', requirePython: false }));
    } catch (err) {
      if (err instanceof ExecutorError) return { text: plainText(err.message), isError: true, cells: [] };
      throw err;
    }
    try {
      const languages = [...new Set(runnable.map((c) => c.language ?? 'py'))];
      results = await session.run(runnable, {
        ...ctx,
        sinkLimits: { ...toolSinkLimits(params.cells.length), ...ctx.sinkLimits },
        // What the cells left running, asked while the kernels still run (per-call mode ends them
        // with the run).
        ...(endsWithCall
          ? {
              afterCells: async (ran, runMore) => {
                if (ctx.signal?.aborted) return;
                const notice = await pendingWorkNotice(session, languages, runMore);
                // (on the last cell that ran: a skipped cell's notices are not in the text)
                if (notice)
                  ran
                    .filter((r) => r.status !== 'skipped')
                    .at(-1)
                    ?.notices.push(notice);
              },
            }
          : {}),
      });
    } finally {
      if (mode === 'per-call' && session !== ctx.session) await session.release();
    }
  }
  const failAt = blocked === -1 ? results.length : Math.min(blocked, results.length);
  if (blockedMessage !== undefined && results.every((r) => r.status === 'ok')) {
    const cell = params.cells[failAt] as CellRequest;
    results.push(failedResult(baseOf(failAt, cell), 0, blockedMessage, { ename: 'BackendUnavailable' }));
  }
  for (let i = results.length; i < params.cells.length; i++)
    results.push(skippedResult(i, params.cells[i] as CellRequest));
  return {
    text: renderToolText(results, endsWithCall),
    isError: results.some((r) => r.status !== 'ok'),
    cells: results,
  };
}
