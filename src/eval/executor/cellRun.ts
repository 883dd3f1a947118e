/**
 * One cell of a run: its kernel (started or replaced as needed), its timeout (the watchdog starts
 * at the cell's `started` frame), one retry in a new kernel when the kernel died under it on its
 * own, and its result.
 */
import type { KernelHandle as Kernel } from '../kernel/handle.js';
import {
  type CellOutcome,
  describeExit,
  LANGUAGE_LABEL,
  type KernelLanguage as Language,
} from '../kernel/types.js';
import { OutputSink } from '../output/outputSink.js';
import { type Collected, frameHandler, type OutputEvent } from './events.js';
import {
  baseOf,
  type CellBase,
  type CellRequest,
  type CellResult,
  type CellStatus,
  exitCodeOf,
  failedResult,
  noticeFor,
} from './results.js';
import type { RunOptions } from './types.js';
import { CellTimeoutError, clampTimeout, Watchdog } from './watchdog.js';

/** What a cell run needs of its session. */
export interface CellRunHost {
  /** The default cell timeout in seconds (the eval.timeout setting). */
  defaultTimeout: number;
  /** A live kernel of `language`, started or replaced now; notices say what happened to the last one. */
  kernelFor(language: Language, notices: string[]): Promise<Kernel>;
  kernelOf(language: Language): Kernel | undefined;
  restart(language: Language): Promise<void>;
  /** Why there is no Python, when the session was opened without one. */
  pythonMissing: boolean;
  /** Aborted by interruptAll() and dispose(). */
  sessionSignal: AbortSignal;
}

interface Attempt {
  outcome: CellOutcome;
  timedOut: boolean;
  interrupted: boolean;
}

/** Everything one cell's attempts share. */
interface CellContext {
  host: CellRunHost;
  code: string;
  seconds: number | undefined;
  sink: OutputSink;
  collected: Collected;
  options: RunOptions;
  emit: (event: OutputEvent) => void;
}

export async function runCell(
  host: CellRunHost,
  index: number,
  cell: CellRequest,
  options: RunOptions,
): Promise<CellResult> {
  const language = cell.language ?? 'py';
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const emit = eventEmitter(host, language, index, options);
  const base = baseOf(index, cell);
  const notices: string[] = [];
  if (cell.reset) await host.restart(language);
  let kernel: Kernel;
  try {
    kernel = await host.kernelFor(language, notices);
  } catch (err) {
    return unavailable(host, base, language, err as Error, elapsed(), emit);
  }
  for (const text of notices) emit({ kind: 'notice', text });
  const context: CellContext = {
    host,
    code: cell.code,
    seconds: timeoutOf(cell, options, host.defaultTimeout),
    sink: new OutputSink({
      ...options.sinkLimits,
      ...(options.collectOutput === false ? { keep: false } : {}),
    }),
    collected: { images: [], json: [], statusEvents: [] },
    options,
    emit,
  };
  let attempt = await attemptCell(kernel, context);
  let retried = false;
  // A kernel that died on its own is retried once; one that died from our interrupt is not.
  const first = attempt.outcome.exit;
  if (first?.reason === 'died' && !attempt.interrupted && options.retryOnDeath !== false) {
    const notice = `The ${LANGUAGE_LABEL[language]} kernel died while running this cell (${describeExit(first)}); a new kernel was started and the cell was retried once. State from earlier cells was lost.`;
    notices.push(notice);
    emit({ kind: 'notice', text: notice });
    context.sink.push(`\n[${notice}]\n`);
    retried = true;
    try {
      attempt = await attemptCell(await host.kernelFor(language, []), context);
    } catch (err) {
      context.sink.end();
      const message = `The ${LANGUAGE_LABEL[language]} kernel could not be restarted: ${(err as Error).message}`;
      return failedResult(base, elapsed(), message, { notices });
    }
  }
  return resultOf(base, attempt, context, { retried, notices, durationMs: elapsed() });
}

/** The cell's events to the front end; a promise it returns pauses the kernel's output (backpressure). */
function eventEmitter(host: CellRunHost, language: Language, index: number, options: RunOptions) {
  return (event: OutputEvent) => {
    const pending = options.onEvent?.(index, event);
    const kernel = host.kernelOf(language);
    if (pending instanceof Promise && kernel) {
      kernel.pauseOutput();
      const resume = () => kernel.resumeOutput();
      pending.then(resume, resume);
    }
  };
}

function timeoutOf(cell: CellRequest, options: RunOptions, setting: number): number | undefined {
  const fallback = options.defaultTimeout === undefined ? setting : options.defaultTimeout;
  if (cell.timeout === undefined && fallback === null) return undefined;
  return clampTimeout(cell.timeout, fallback ?? undefined);
}

/** A cell whose kernel could not be had: front ends that print events show why. */
function unavailable(
  host: CellRunHost,
  base: CellBase,
  language: Language,
  err: Error,
  durationMs: number,
  emit: (event: OutputEvent) => void,
): CellResult {
  const missingPython = language === 'py' && host.pythonMissing;
  const message = missingPython
    ? err.message
    : `The ${LANGUAGE_LABEL[language]} kernel could not be started: ${err.message}`;
  const ename = missingPython ? 'BackendUnavailable' : 'EvalError';
  emit({ kind: 'error', ename, evalue: message, traceback: [message] });
  return failedResult(base, durationMs, message, { ename });
}

/** One execution of the cell under its watchdog. */
async function attemptCell(kernel: Kernel, c: CellContext): Promise<Attempt> {
  const watchdog = new Watchdog(c.seconds);
  const signals = [watchdog.signal, c.host.sessionSignal];
  if (c.options.signal) signals.push(c.options.signal);
  const signal = AbortSignal.any(signals);
  try {
    const outcome = await kernel.execute(c.code, {
      signal,
      onFrame: frameHandler(c.sink, c.collected, watchdog, c.emit),
      ...(c.options.allowStdin ? { allowStdin: true } : {}),
    });
    const timedOut =
      watchdog.signal.aborted &&
      watchdog.signal.reason instanceof CellTimeoutError &&
      (outcome.cancelled || outcome.exit !== undefined);
    return { outcome, timedOut, interrupted: signal.aborted };
  } finally {
    watchdog.dispose();
  }
}

function resultOf(
  base: CellBase,
  attempt: Attempt,
  c: CellContext,
  run: { retried: boolean; notices: string[]; durationMs: number },
): CellResult {
  const { outcome: o, timedOut, interrupted } = attempt;
  const exit = o.exit;
  // Our interrupt ended in the kernel's death (a cell that restored the default SIGINT
  // disposition): it counts as killed, like an unanswered interrupt.
  const killed = o.killed || (interrupted && exit !== undefined);
  const label = LANGUAGE_LABEL[base.language];
  const notice = noticeFor({ timedOut, killed, exit, retried: run.retried, seconds: c.seconds, label });
  if (notice) {
    run.notices.push(notice);
    c.emit({ kind: 'notice', text: notice });
    if (exit && !timedOut) c.sink.push(`[${notice}]\n`);
  }
  if (exit && o.error?.ename === 'KernelDied' && o.error.traceback.length)
    c.sink.push(`${o.error.traceback.join('\n')}\n`);
  c.sink.end();
  const status: CellStatus = o.status === 'ok' ? 'ok' : o.cancelled || interrupted ? 'cancelled' : 'error';
  const exitCode =
    exit?.reason === 'died' && !interrupted
      ? exitCodeOf(exit)
      : status === 'ok'
        ? 0
        : status === 'cancelled'
          ? 130
          : 1;
  return {
    ...base,
    status,
    exitCode,
    executionCount: o.executionCount,
    durationMs: run.durationMs,
    timedOut,
    kernelKilled: killed,
    retried: run.retried,
    text: c.sink.text,
    ...(c.sink.truncation ? { truncation: c.sink.truncation } : {}),
    ...c.collected,
    ...(o.error ? { error: o.error } : {}),
    notices: run.notices,
  };
}
