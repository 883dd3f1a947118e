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
import { DEFAULT_SINK_LIMITS, OutputSink, type SinkLimits, type Truncation } from './output/outputSink.js';
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

/** A `completion()` call's closing status line: the first of the call says it, the rest add nothing. */
const COMPLETION_LINE = /^\[completion(?: [^\n]*)? finished\]\n/gm;

/** Status lines said once per call (see COMPLETION_LINE): the ones said already. */
type SaidOnce = Set<string>;

/** Output text for a model: without colour (SGR), each completion line once per call. */
function modelText(text: string, said: SaidOnce): string {
  const plain = plainText(text);
  if (!plain.includes('[completion')) return plain;
  return plain.replace(COMPLETION_LINE, (line) => {
    if (said.has(line)) return '';
    said.add(line);
    return line;
  });
}

/**
 * One cell's part of the text, without its `[i/n]` header: its output, notices, and (unless
 * `cutOnce`) a closing line on where its full output is (the marker inside the output names it too).
 */
function cellBody(cell: CellResult, said: SaidOnce, cutOnce: boolean): string {
  const lines: string[] = [];
  if (cell.background)
    lines.push(
      "[output of earlier cells' threads or timers, written outside any cell:]",
      modelText(cell.background, said).replace(/\n+$/, ''),
      '[end of that output]',
    );
  // Notices in the order they happened: those before the first one the output already shows (a
  // new kernel replaced one that had exited) come before the output, the others after it.
  const shownAt = cell.notices.findIndex((notice) => cell.text.includes(notice));
  const apart = (notices: string[]) =>
    notices.filter((notice) => !cell.text.includes(notice)).map((notice) => `[${plainText(notice)}]`);
  if (shownAt > 0) lines.push(...apart(cell.notices.slice(0, shownAt)));
  const body = modelText(cell.text, said).replace(/\n+$/, '');
  if (body) lines.push(body);
  lines.push(...apart(shownAt > 0 ? cell.notices.slice(shownAt) : cell.notices));
  if (cell.truncation && !cutOnce)
    lines.push(
      `[output truncated: ${cell.truncation.totalChars} chars in all; ${cell.truncation.fullOutput}]`,
    );
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

export interface ToolTextOptions {
  /** The kernels end with the call (`omp-eval tool`, per-call mode), and so does state. */
  endsWithCall?: boolean;
  /** News from before this call, first, each in brackets (MCP: what became of a cancelled call). */
  notices?: string[];
  /** Lines after the verdict (MCP: what became of the images, how to read a cut output). */
  trailer?: string[];
  /**
   * A cut output is announced by the marker inside its text only (it names the artifact), with no
   * closing `[output truncated: ...]` line (MCP; `omp-eval tool` keeps the line).
   */
  cutOnce?: boolean;
  /** The characters the whole text may take (default TOOL_TEXT_CHARS). */
  budget?: number;
  /** Where a text over the budget keeps all of itself (default: the artifacts folder itself). */
  artifactDir?: string;
}

export interface ToolText {
  /** What the agent reads. */
  text: string;
  /** Each cell's part of it that ran (no `[i/n]` header): its output, notices, where the rest is. */
  parts: string[];
  /** The closing sentence on the cell that did not end ok (or on a call that ran nothing). */
  verdict?: string;
  /** The text was over its budget: its head and tail are shown, all of it is in an artifact. */
  truncation?: Truncation;
}

/**
 * The text an agent reads and its parts: call notices, each cell's output (prefixed when there are
 * several), the verdict, the trailer; head and tail of it when over the budget. Colour is dropped,
 * and a `completion()` call's closing line said once per call.
 */
export function composeToolText(cells: CellResult[], options: ToolTextOptions = {}): ToolText {
  const said: SaidOnce = new Set();
  const parts = cells.map((c) => (c.status === 'skipped' ? '' : cellBody(c, said, options.cutOnce === true)));
  const blocks = [(options.notices ?? []).map((n) => `[${plainText(n)}]`).join('\n')];
  for (const [i, cell] of cells.entries()) {
    if (cell.status === 'skipped') continue;
    const part = parts[i] as string;
    if (cells.length > 1)
      blocks.push(part ? `${cellHeader(cell, cells.length)}\n${part}` : cellHeader(cell, cells.length));
    else blocks.push(part || (cell.status === 'ok' ? '(no output)' : ''));
  }
  const failed = cells.find((c) => c.status !== 'ok' && c.status !== 'skipped');
  const verdictText = failed
    ? verdict(failed, cells, options.endsWithCall === true)
    : cells.length && cells.every((c) => c.status === 'skipped')
      ? 'No cell ran: the call was cancelled before it started.'
      : undefined;
  const trailer = (options.trailer ?? []).filter(Boolean).join('\n');
  const whole = [...blocks, verdictText ?? '', trailer].filter(Boolean).join('\n\n');
  const clamped = clampText(whole, options.budget ?? TOOL_TEXT_CHARS, options.artifactDir);
  return {
    text: clamped.text,
    parts,
    ...(verdictText ? { verdict: verdictText } : {}),
    ...(clamped.truncation ? { truncation: clamped.truncation } : {}),
  };
}

/**
 * The text an agent reads: each cell's output (prefixed when there are several), then the verdict.
 * `endsWithCall`: the kernels end with the call (`omp-eval tool`, per-call mode), and so does state.
 */
export function renderToolText(cells: CellResult[], endsWithCall = false): string {
  return composeToolText(cells, { endsWithCall }).text;
}

/** The whole text's budget (each cell's output is within its share already; this bounds the rest). */
export const TOOL_TEXT_CHARS = 60_000;

/** A text over the budget: its head and tail, and all of it in an artifact. */
function clampText(
  text: string,
  budget: number,
  artifactDir: string | undefined,
): { text: string; truncation?: Truncation } {
  if (text.length <= budget) return { text };
  // (less the marker between head and tail, which names the artifact)
  const kept = budget - 300;
  const sink = new OutputSink({
    headChars: Math.floor(kept * 0.4),
    tailChars: kept - Math.floor(kept * 0.4),
    ...(artifactDir ? { artifactDir } : {}),
  });
  sink.push(text);
  sink.end();
  const { truncation } = sink;
  return { text: sink.text, ...(truncation ? { truncation } : {}) };
}

/** Each cell's output limits in a call of `count` cells: a share of the budget, so the call's text stays within it. */
export function toolSinkLimits(count: number): Partial<SinkLimits> {
  const share = (chars: number, floor: number) => Math.max(floor, Math.floor(chars / Math.max(1, count)));
  return {
    headChars: share(DEFAULT_SINK_LIMITS.headChars, 2_000),
    tailChars: share(DEFAULT_SINK_LIMITS.tailChars, 3_000),
  };
}

/** The characters of a call's cell outputs together (the rest of the text's budget is notices and verdict). */
const OUTPUT_CHARS = DEFAULT_SINK_LIMITS.headChars + DEFAULT_SINK_LIMITS.tailChars;
/** What a cell adds besides its output: its header, and when its output is cut, the marker naming the artifact. */
const CELL_OVERHEAD_CHARS = 160;
/** The least a cell keeps of its output (below, a call of hundreds of cells is clamped as a whole). */
const MIN_CELL_CHARS = 100;

/**
 * Each cell's output limits as a share of one budget for the whole call, with no floor that the
 * cells together could exceed: `count` cells' outputs, headers and cut markers stay within
 * OUTPUT_CHARS (down to MIN_CELL_CHARS a cell). (toolSinkLimits keeps 5,000 characters a cell, so
 * that 30 cells came to 150,000 and the text's clamp dropped whole cells from its middle.)
 */
export function budgetSinkLimits(count: number): Pick<SinkLimits, 'headChars' | 'tailChars'> {
  const n = Math.max(1, count);
  const share = Math.max(MIN_CELL_CHARS, Math.floor((OUTPUT_CHARS - (n - 1) * CELL_OVERHEAD_CHARS) / n));
  const headChars = Math.floor(share * 0.4);
  return { headChars, tailChars: share - headChars };
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
  /** Leave the result's text empty: the caller composes its own (composeToolText). */
  skipText?: boolean;
  /** Told the session the cells run in (the MCP server answers their input() through it). */
  onSession?: (session: Session) => void;
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
    ctx.onSession?.(session);
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
    text: ctx.skipText ? '' : renderToolText(results, endsWithCall),
    isError: results.some((r) => r.status !== 'ok'),
    cells: results,
  };
}
