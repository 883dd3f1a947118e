/**
 * One cell of a run: its kernel (started or replaced as needed), its timeout (the watchdog starts
 * when the request goes to an idle kernel, or at the cell's `started` frame after a kernel's
 * start, and is held while the cell's own bridge calls are in flight), one
 * retry in a new kernel when the kernel died under it on its own and a retry can help, and its
 * result.
 */
import { clampTimeout } from '../cellTimeout.js';
import type { KernelHandle as Kernel } from '../kernel/handle.js';
import { type CellOutcome, describeExit, LANGUAGE_LABEL } from '../kernel/types.js';
import type { Language } from '../language.js';
import { ResultCollector } from '../output/collected.js';
import { OutputSink } from '../output/outputSink.js';
import type { BridgeActivity } from './bridgeActivity.js';
import { frameHandler, type OutputEvent } from './events.js';
import { oomKillCount, outOfMemory } from './oom.js';
import {
  baseOf,
  boundedError,
  type CellBase,
  type CellRequest,
  type CellResult,
  type CellResultStatus,
  crashed,
  failedResult,
  noticeFor,
  resultExitCode,
} from './results.js';
import { ExecutorClosedError, type RunOptions } from './types.js';
import { CellTimeoutError, Watchdog } from './watchdog.js';

/** What a cell run needs of its session. */
export interface CellRunHost {
  /** The default cell timeout in seconds (the eval.timeout setting). */
  defaultTimeout: number;
  /** The executor's folder of artifacts (artifact.ts: a scope of its own). */
  artifactDir?: string;
  /** A live kernel of `language`, started or replaced now; notices say what happened to the last one. */
  kernelFor(language: Language, notices: string[]): Promise<Kernel>;
  kernelOf(language: Language): Kernel | undefined;
  restart(language: Language): Promise<void>;
  /** Why there is no Python, when the session was opened without one. */
  pythonMissing: boolean;
  /** Aborted by interruptAll() and dispose(). */
  sessionSignal: AbortSignal;
  /** The host's count of bridge calls in flight, by cell. */
  bridgeActivity: BridgeActivity;
  /** Output written outside any cell since the last call, when nobody listens for it. */
  takeBackground(): string | undefined;
}

interface Attempt {
  outcome: CellOutcome;
  timedOut: boolean;
  interrupted: boolean;
  /** Why omp-eval was closing under the cell, if it was. */
  closed?: string;
  /** Why the kernel's death looks like a lack of memory, if it does. */
  outOfMemory?: string;
}

/** Everything one cell's attempts share. */
interface CellContext {
  host: CellRunHost;
  code: string;
  cellNumber: number | undefined;
  scriptLine: number | undefined;
  seconds: number | undefined;
  sink: OutputSink;
  collector: ResultCollector;
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
    const closing = host.sessionSignal.reason;
    if (host.sessionSignal.aborted && closing instanceof ExecutorClosedError)
      return notRun(
        base,
        `omp-eval was shutting down (${closing.why}) before this cell ran: it was not run.`,
        emit,
      );
    return withBackground(host, unavailable(host, base, language, err as Error, elapsed(), emit));
  }
  for (const text of notices) emit({ kind: 'notice', text });
  const context: CellContext = {
    host,
    code: cell.code,
    cellNumber: cell.cellNumber,
    scriptLine: cell.scriptLine,
    seconds: timeoutOf(cell, options, host.defaultTimeout),
    sink: new OutputSink({
      ...options.sinkLimits,
      ...(options.collectOutput === false ? { keep: false } : {}),
      ...(host.artifactDir ? { artifactDir: host.artifactDir } : {}),
    }),
    collector: new ResultCollector(host.artifactDir ? { artifactDir: host.artifactDir } : {}),
    options,
    emit,
  };
  let attempt = await attemptCell(kernel, context);
  let retried = false;
  // A kernel that crashed on its own is retried once, unless it ran out of memory (it would
  // again); one that died from our interrupt is not, nor one whose process exited with a code of
  // its own (os._exit(), exit() in native code): the cell ended it on purpose, and would again,
  // after doing twice whatever it did first.
  const first = attempt.outcome.exit;
  if (
    first?.reason === 'died' &&
    crashed(first) &&
    !attempt.interrupted &&
    !attempt.outOfMemory &&
    options.retryOnDeath !== false
  ) {
    const notice = `The ${LANGUAGE_LABEL[language]} kernel died while running this cell (${describeExit(first)}); a new kernel was started and the cell was retried once, without the state of earlier cells (an error below may come from that). What the cell did before the crash (files written, requests sent) may have been done twice.`;
    notices.push(notice);
    emit({ kind: 'notice', text: notice });
    context.sink.pushBlock(`[${notice}]\n`);
    retried = true;
    try {
      attempt = await attemptCell(await host.kernelFor(language, []), context);
    } catch (err) {
      context.sink.end();
      const message = `The ${LANGUAGE_LABEL[language]} kernel could not be restarted: ${(err as Error).message}`;
      return withBackground(host, failedResult(base, elapsed(), message, { notices }));
    }
  }
  return withBackground(host, resultOf(base, attempt, context, { retried, notices, durationMs: elapsed() }));
}

function withBackground(host: CellRunHost, result: CellResult): CellResult {
  const background = host.takeBackground();
  return background ? { ...result, background } : result;
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

/** A cell that never ran, because omp-eval was closing while its kernel started: cancelled, with why. */
function notRun(base: CellBase, notice: string, emit: (event: OutputEvent) => void): CellResult {
  emit({ kind: 'notice', text: notice });
  const { error: _, ...failed } = failedResult(base, 0, notice);
  return { ...failed, status: 'cancelled', exitCode: 130, notices: [notice] };
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
  const bridge = c.host.bridgeActivity.watch(watchdog);
  const signals = [watchdog.signal, c.host.sessionSignal];
  if (c.options.signal) signals.push(c.options.signal);
  const signal = AbortSignal.any(signals);
  const oomKills = oomKillCount();
  try {
    const outcome = await kernel.execute(c.code, {
      signal,
      onFrame: frameHandler({ sink: c.sink, collector: c.collector, bridge, emit: c.emit }),
      // The timeout counts from the request to an idle kernel, not from its `started`: a kernel
      // kept busy by what an earlier cell left running (a thread holding the GIL, a js timer's
      // endless loop) never starts the cell, which then times out and the kernel is stopped.
      onSent: () => watchdog.start(),
      ...(c.options.silent ? { silent: true } : {}),
      ...(c.options.allowStdin ? { allowStdin: true } : {}),
      ...(c.options.stdinEnds ? { stdinEnds: true } : {}),
      ...(c.cellNumber !== undefined ? { cellNumber: c.cellNumber } : {}),
      ...(c.scriptLine !== undefined ? { scriptLine: c.scriptLine } : {}),
      ...(c.options.cellEnv ? { env: c.options.cellEnv } : {}),
    });
    // The timeout fired: the cell timed out, whatever it did with the interrupt (a cell that
    // caught KeyboardInterrupt and ended normally still ran past its budget).
    const timedOut = watchdog.signal.aborted && watchdog.signal.reason instanceof CellTimeoutError;
    const reason: unknown = c.host.sessionSignal.reason;
    const closed =
      c.host.sessionSignal.aborted && reason instanceof ExecutorClosedError ? reason.why : undefined;
    const exit = outcome.exit;
    const oom = exit?.reason === 'died' ? outOfMemory(exit, oomKills) : undefined;
    return {
      outcome,
      timedOut,
      interrupted: signal.aborted,
      ...(closed !== undefined && outcome.status !== 'ok' ? { closed } : {}),
      ...(oom ? { outOfMemory: oom } : {}),
    };
  } finally {
    bridge.dispose();
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
  // A remote kernel restarted through its server after the interrupt says so in the cell's error:
  // one message for the event, not that and "was killed" too.
  const explained = killed && !timedOut && o.error?.ename === 'KernelRestarted';
  const notice = explained
    ? undefined
    : noticeFor({
        timedOut,
        killed,
        retried: run.retried,
        label,
        ...(exit ? { exit } : {}),
        ...(c.seconds !== undefined ? { seconds: c.seconds } : {}),
        ...(attempt.closed !== undefined ? { closed: attempt.closed } : {}),
        ...(attempt.outOfMemory ? { outOfMemory: attempt.outOfMemory } : {}),
      });
  if (notice) {
    run.notices.push(notice);
    c.emit({ kind: 'notice', text: notice });
    if (exit && !timedOut) c.sink.pushBlock(`[${notice}]\n`);
  }
  if (exit && o.error?.ename === 'KernelDied' && o.error.traceback.length)
    c.sink.pushBlock(`${o.error.traceback.join('\n')}\n`);
  c.sink.end();
  const status: CellResultStatus =
    o.status === 'ok' && !timedOut ? 'ok' : o.cancelled || interrupted ? 'cancelled' : 'error';
  const left = c.collector.finish();
  return {
    ...base,
    status,
    // (a cell ended by sys.exit(n) / process.exit(n), n not 0: n, as a script's would be)
    exitCode:
      !exit && status === 'error' && o.error?.exitCode ? o.error.exitCode : resultExitCode(status, exit),
    // (A kernel that died under the cell never counted it: its last count is another cell's.)
    ...(exit ? {} : { executionCount: o.executionCount }),
    durationMs: run.durationMs,
    timedOut,
    kernelKilled: killed,
    retried: run.retried,
    text: c.sink.text,
    ...(c.sink.truncation ? { truncation: c.sink.truncation } : {}),
    images: c.collector.images,
    json: c.collector.json,
    statusEvents: c.collector.statusEvents,
    ...(o.error ? { error: boundedError(o.error) } : {}),
    notices: [...run.notices, ...left],
  };
}
