/** A cell's result, and the results of cells that did not run or failed outside a kernel. */
import { constants } from 'node:os';
import type { CellError, KernelExit } from '../kernel/types.js';
import { describeExit } from '../kernel/types.js';
import type { Language } from '../language.js';
import type { ImageOutput, StatusEvent } from '../output/display.js';
import type { Truncation } from '../output/outputSink.js';
import { plainText } from '../output/text.js';

export interface CellRequest {
  language?: Language;
  code: string;
  title?: string;
  /** Seconds, clamped to 1..3600; default from settings. */
  timeout?: number;
  /** Restart this cell's runtime (the kernel of its language) before it runs. */
  reset?: boolean;
  /** The number a front end shows for the cell (`In [n]`): its tracebacks say `Cell In[n]`. */
  cellNumber?: number;
  /** (`omp-eval run`) The script's line where the cell starts: its tracebacks name the script and line. */
  scriptLine?: number;
}

/** How a cell ended, in its result (the notebook's `CellStatus` adds the states of a cell on screen). */
export type CellResultStatus = 'ok' | 'error' | 'cancelled' | 'skipped';

export interface CellResult {
  index: number;
  title?: string;
  language: Language;
  status: CellResultStatus;
  /** 0 ok, 1 error, 130 cancelled, or the dead kernel's exit code (128 + n for signal n). */
  exitCode: number | null;
  /** The kernel's count for the cell; absent when its kernel died under it (no count came). */
  executionCount?: number;
  durationMs: number;
  timedOut: boolean;
  kernelKilled: boolean;
  /** The kernel died during the cell and the cell was run again in a new kernel. */
  retried: boolean;
  /** Output text (stdout, stderr, results, tracebacks) in order, head and tail when truncated. */
  text: string;
  truncation?: Truncation;
  images: ImageOutput[];
  json: unknown[];
  statusEvents: StatusEvent[];
  error?: CellError;
  /** Annotations about the run itself (timeouts, retries, restarts). */
  notices: string[];
  /** The cell restarted its kernel before it ran (`reset: true`). */
  reset?: true;
  /**
   * Output that threads and timers of earlier cells wrote outside any cell, up to this cell's
   * end, when no front end listens for it (an embedded session: the MCP server, the tool).
   */
  background?: string;
}

export const TIMEOUT_NOTICE = (s: number) =>
  `eval cell timed out after ${s}s; kernel interrupted but remains running. Reset the kernel via { reset: true } if state appears corrupted.`;
/** A notice without its advice in the eval tool's protocol (`{ reset: true }`), for other front ends. */
export function withoutToolAdvice(text: string): string {
  return text.replace(/\s*[^.]*\{ ?reset: ?true ?\}[^.]*\.?/g, '').trim();
}
export const TIMEOUT_KILLED_NOTICE =
  'eval cell timed out and the kernel was unresponsive to interrupt; the kernel has been killed and will be recreated on the next call.';

/** The shell's convention: the exit code, or 128 + n for a death by signal n. */
function exitCodeOf(exit: KernelExit): number | null {
  if (exit.signal) return 128 + (constants.signals[exit.signal] ?? 0);
  return exit.code;
}

/**
 * A death by a signal, not an exit the process chose (under bwrap, whose exit code 128 + n for a
 * runner killed by signal n the sandbox reports as the signal, too: sandbox.ts processEnd).
 */
export function crashed(exit: Pick<KernelExit, 'code' | 'signal'>): boolean {
  return exit.signal !== null;
}

/**
 * A result's exit code: a dead kernel's own (128 + n for signal n, its non-zero code, or the 0 of
 * a kernel that ended itself so), else 0 for ok, 130 for cancelled, 1 for an error.
 */
export function resultExitCode(status: CellResultStatus, exit: KernelExit | undefined): number {
  const code = exit ? exitCodeOf(exit) : null;
  if (code !== null && (code !== 0 || exit?.reason === 'died')) return code;
  return status === 'ok' ? 0 : status === 'cancelled' ? 130 : 1;
}

/** How a cell ended, for its notice. */
export interface CellEnd {
  timedOut: boolean;
  killed: boolean;
  exit?: KernelExit;
  retried: boolean;
  seconds?: number;
  label: string;
  /** omp-eval was closing (the executor disposed, e.g. on SIGTERM) while the cell ran: why. */
  closed?: string;
  /** The kernel's death looked like a lack of memory: why (the cell was not retried). */
  outOfMemory?: string;
}

/** The annotation of how a cell ended, when it ended abnormally. */
export function noticeFor(o: CellEnd): string | undefined {
  if (o.closed)
    return `omp-eval was shutting down (${o.closed}) while this cell ran: the cell was stopped and the ${o.label} kernel was ended, so its state is gone.`;
  if (o.timedOut) return o.killed ? TIMEOUT_KILLED_NOTICE : TIMEOUT_NOTICE(o.seconds ?? 0);
  if (o.killed) {
    return o.exit?.reason === 'died'
      ? `The kernel died when it was interrupted (${describeExit(o.exit)}); it will be recreated on the next run.`
      : 'The kernel did not respond to the interrupt and was killed; it will be recreated on the next run.';
  }
  if (o.exit?.reason === 'died' && o.outOfMemory)
    return `The ${o.label} kernel ran out of memory (${describeExit(o.exit)}: ${o.outOfMemory}); the cell was not run again, since it would run out again. The next cell starts a new kernel: earlier state is gone.`;
  if (o.exit?.reason === 'died') {
    if (o.retried) return `The ${o.label} kernel died again on the retry (${describeExit(o.exit)}).`;
    if (!crashed(o.exit))
      return `The ${o.label} kernel exited while running this cell (${describeExit(o.exit)}): the cell's code ended the process (${o.label === 'JavaScript' ? 'process.reallyExit()' : 'os._exit()'}, or exit() in native code), so the cell was not run again. The next cell starts a new kernel: earlier state is gone.`;
    return `The ${o.label} kernel died (${describeExit(o.exit)}).`;
  }
  if (o.exit?.reason === 'memory-limit')
    // (Not "the next cell runs in a new kernel": the cells after it in the same call are skipped.)
    return `The ${o.label} kernel exceeded ${o.exit.memoryLimitMb} MB and was stopped (--memory-limit). This cell is not run again, and the cells after it in this call are skipped; the next cell you run starts a new ${o.label} kernel, without the state of earlier cells.`;
  if (o.exit?.reason === 'shutdown') return 'The kernel was shut down while this cell was running.';
  if (o.exit?.reason === 'protocol-error') return 'The kernel was stopped: its output could not be read.';
  return undefined;
}

export type CellBase = Pick<CellResult, 'index' | 'title' | 'language' | 'reset'>;

/** The identity fields of a cell's result. */
export function baseOf(index: number, cell: CellRequest): CellBase {
  return {
    index,
    // As the caller gave it, less what a terminal would act on (escape sequences, controls).
    ...(cell.title ? { title: plainText(cell.title) } : {}),
    language: cell.language ?? 'py',
    ...(cell.reset ? { reset: true } : {}),
  };
}

/**
 * A result with what `fields` gives and nothing else: no output, no notice, no flag set. Every
 * result made outside a cell's run (skipped, failed, a follower's copy) is made here.
 */
export function cellResultOf(
  fields: Pick<CellResult, 'index' | 'language' | 'status' | 'exitCode' | 'durationMs'> & Partial<CellResult>,
): CellResult {
  return {
    timedOut: false,
    kernelKilled: false,
    retried: false,
    text: '',
    images: [],
    json: [],
    statusEvents: [],
    notices: [],
    ...fields,
  };
}

/** A cell that was not run because an earlier one did not succeed (or the run was aborted). */
export function skippedResult(index: number, cell: CellRequest): CellResult {
  return cellResultOf({ ...baseOf(index, cell), status: 'skipped', exitCode: null, durationMs: 0 });
}

/** A cell that failed before or outside a kernel (no kernel, backend unavailable, ...). */
export function failedResult(
  base: CellBase,
  durationMs: number,
  message: string,
  opts: { ename?: string; notices?: string[] } = {},
): CellResult {
  // The message can hold what a caller gave (a path, an interpreter): plain text only.
  message = plainText(message);
  return cellResultOf({
    ...base,
    status: 'error',
    exitCode: 1,
    durationMs,
    text: `${message}\n`,
    error: { ename: opts.ename ?? 'EvalError', evalue: message, traceback: [] },
    notices: opts.notices ?? [],
  });
}

const ERROR_VALUE_CHARS = 10_000;
const TRACEBACK_CHARS = 50_000;

/** A cell's error, bounded for the result (the whole traceback is in the text and its artifact). */
export function boundedError(error: CellError): CellError {
  const cut = (text: string, max: number) =>
    text.length > max ? `${text.slice(0, max)}… [${text.length - max} chars cut]` : text;
  const traceback: string[] = [];
  let chars = 0;
  for (let i = error.traceback.length - 1; i >= 0 && chars < TRACEBACK_CHARS; i--) {
    const line = cut(error.traceback[i] as string, ERROR_VALUE_CHARS);
    traceback.unshift(line);
    chars += line.length;
  }
  if (traceback.length < error.traceback.length)
    traceback.unshift(`… [${error.traceback.length - traceback.length} earlier lines of the traceback cut]`);
  return { ...error, evalue: cut(error.evalue, ERROR_VALUE_CHARS), traceback };
}
