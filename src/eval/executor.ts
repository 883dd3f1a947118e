/**
 * The executor: runs cells for every front end (the TUI, `omp-eval run`, the eval tool).
 *
 * In `session` mode kernels are retained per session id + working directory + interpreter and
 * shared by every owner of that key; calls on one key queue. In `per-call` mode each run gets a
 * fresh kernel that is shut down afterwards.
 */
import { realpathSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { resolve as resolvePath } from 'node:path';
import { commandBridge } from './bridge.js';
import { type ImageOutput, renderBundle, type StatusEvent, statusEvent } from './display.js';
import {
  type BridgeHandler,
  type CellError,
  type CellOutcome,
  type Completion,
  describeExit,
  Kernel,
  type KernelExit,
  LANGUAGE_LABEL,
} from './kernel.js';
import { OutputSink, type SinkLimits, type Truncation } from './outputSink.js';
import type { Frame } from './protocol.js';
import { PythonNotFoundError, type ResolvedPython, resolvePython } from './runtime.js';
import type { KernelMode, Settings } from './settings.js';
import { DEFAULT_SETTINGS } from './settings.js';
import { CellTimeoutError, clampTimeout, Watchdog } from './watchdog.js';

export type { KernelLanguage as Language } from './kernel.js';

import type { KernelLanguage as Language } from './kernel.js';

export const LANGUAGES: readonly Language[] = ['py', 'js'];

export interface CellRequest {
  language?: Language;
  code: string;
  title?: string;
  /** Seconds, clamped to 1..3600; default from settings. */
  timeout?: number;
  /** Restart this cell's runtime (the kernel of its language) before it runs. */
  reset?: boolean;
}

export type CellStatus = 'ok' | 'error' | 'cancelled' | 'skipped';

/** What a front end sees while a cell runs. */
export type OutputEvent =
  | { kind: 'started' }
  | { kind: 'stdout' | 'stderr'; text: string }
  | {
      kind: 'display' | 'result';
      /** The bundle's text as plain text (for markdown and HTML: the markdown source). */
      text?: string;
      /** Set when `text` is markdown (text/markdown, or HTML converted): renderMarkdown() it. */
      markdown?: string;
      /** `text` with terminal colours, when the kernel sent them (js results). */
      ansi?: string;
      /** At most one image (PNG preferred). */
      images: ImageOutput[];
      json?: unknown;
      /** The MIME types the bundle carried. */
      mimeTypes?: string[];
      /** display(obj, display_id=...): later outputs with `update` replace this one. */
      displayId?: string;
      /** This output replaces the earlier one with the same displayId. */
      update?: boolean;
    }
  | { kind: 'error'; ename: string; evalue: string; traceback: string[] }
  | { kind: 'status'; event: StatusEvent }
  | { kind: 'input_request'; prompt: string; password: boolean }
  | { kind: 'notice'; text: string };

export interface CellResult {
  index: number;
  title?: string;
  language: Language;
  status: CellStatus;
  /** 0 ok, 1 error, 130 cancelled, or the dead kernel's exit code (128 + n for signal n). */
  exitCode: number | null;
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
}

export interface RunOptions {
  signal?: AbortSignal;
  /**
   * Called for every event. Returning a promise applies backpressure: the kernel's output is not
   * read (so the cell blocks on its writes) until the promise settles.
   */
  onEvent?: (cellIndex: number, event: OutputEvent) => unknown;
  /** Let input() ask the front end (answer with Session.sendInput). */
  allowStdin?: boolean;
  /** Output limits of each cell's sink. */
  sinkLimits?: Partial<SinkLimits>;
  /** Timeout in seconds for cells that set none (default: the eval.timeout setting); null for none. */
  defaultTimeout?: number | null;
  /**
   * Keep each cell's output text in the result (default true). Front ends that print as they go
   * pass false: nothing is kept and no artifact file is written.
   */
  collectOutput?: boolean;
  /**
   * Run a cell again in a new kernel when the kernel died under it on its own (default true, as
   * the eval tool does). A notebook passes false: re-running user code repeats its side effects.
   */
  retryOnDeath?: boolean;
}

export interface SessionOptions {
  id?: string;
  cwd?: string;
  /** Overrides the settings' kernel mode for this session. */
  mode?: KernelMode;
  /**
   * The executor itself owns the session and hands the same one to every caller with this key,
   * so state persists across calls until dispose() (the eval tool's calls work this way). Callers
   * do not release a retained session.
   */
  retain?: boolean;
  /**
   * Fail when no Python can be found (default true). False lets a session without Python run js
   * cells; its py cells then fail with the availability error.
   */
  requirePython?: boolean;
}

export interface ExecutorOptions {
  settings?: Partial<Settings>;
  hostEnv?: NodeJS.ProcessEnv;
  /** Extra environment entries set in every kernel at init. */
  kernelEnv?: Record<string, string>;
  /** Answers agent() and completion() (default: the configured commands). */
  bridge?: BridgeHandler;
  /** The code every kernel runs once at start (default: the bundled prelude). */
  prelude?: string;
  /** Kernel tuning, for tests. */
  interruptEscalationMs?: number;
  shutdownGraceMs?: number;
}

export class ExecutorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExecutorError';
  }
}

export const TIMEOUT_NOTICE = (s: number) =>
  `eval cell timed out after ${s}s; kernel interrupted but remains running. Reset the kernel via { reset: true } if state appears corrupted.`;
export const TIMEOUT_KILLED_NOTICE =
  'eval cell timed out and the kernel was unresponsive to interrupt; the kernel has been killed and will be recreated on the next call.';

/** The shell's convention: the exit code, or 128 + n for a death by signal n. */
function exitCodeOf(exit: KernelExit): number | null {
  if (exit.signal) return 128 + (constants.signals[exit.signal] ?? 0);
  return exit.code;
}

/** Validates the working directory and returns its real path. */
export function checkCwd(cwd: string): string {
  const full = resolvePath(cwd);
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(full);
  } catch {
    throw new ExecutorError(`Working directory does not exist: ${full}`);
  }
  if (!st.isDirectory()) throw new ExecutorError(`Working directory is not a directory: ${full}`);
  return realpathSync(full);
}

interface Entry {
  /** Listeners of output that kernels of this entry sent between cells. */
  background: Set<(frame: Frame) => void>;
  key: string;
  cwd: string;
  /** Unset when no Python was found (the session was opened with requirePython: false). */
  python?: ResolvedPython;
  pythonError?: Error;
  owners: number;
  /** One kernel per language, each with its own state, started at its first cell. */
  kernels: Partial<Record<Language, Kernel>>;
  /** Tail of the queue of runs on this key. */
  lock: Promise<void>;
}

export class Executor {
  readonly settings: Settings;
  private readonly entries = new Map<string, Entry>();
  /** Sessions the executor itself owns for the eval tool, by key: they live until dispose(). */
  private readonly retained = new Map<string, Session>();
  private sessionAbort = new AbortController();
  private disposed = false;

  private readonly bridge: BridgeHandler;

  constructor(private readonly opts: ExecutorOptions = {}) {
    this.settings = { ...DEFAULT_SETTINGS, ...opts.settings };
    this.bridge =
      opts.bridge ??
      commandBridge({
        ...(this.settings['bridge.agentCommand'] ? { agent: this.settings['bridge.agentCommand'] } : {}),
        ...(this.settings['bridge.completionCommand']
          ? { completion: this.settings['bridge.completionCommand'] }
          : {}),
      });
  }

  private get hostEnv() {
    return this.opts.hostEnv ?? process.env;
  }

  /** Resolves the interpreter for a working directory (the setting, else discovery). */
  resolvePython(cwd: string): Promise<ResolvedPython> {
    return resolvePython({ interpreter: this.settings['python.interpreter'], cwd, env: this.hostEnv });
  }

  /** Becomes an owner of the kernel for (id, cwd, interpreter). Release it when done. */
  async session(options: SessionOptions = {}): Promise<Session> {
    if (this.disposed) throw new ExecutorError('the executor has been disposed');
    const cwd = checkCwd(options.cwd ?? process.cwd());
    let python: ResolvedPython | undefined;
    let pythonError: Error | undefined;
    try {
      python = await this.resolvePython(cwd);
    } catch (err) {
      if (options.requirePython !== false || !(err instanceof PythonNotFoundError)) throw err;
      pythonError = err;
    }
    let real = python?.executable ?? '(no python)';
    try {
      real = realpathSync(real);
    } catch {
      // keep the path as given
    }
    const mode = options.mode ?? this.settings['python.kernelMode'];
    const id = options.id ?? 'default';
    const key = mode === 'per-call' ? `per-call\0${Math.random()}` : `${id}\0${cwd}\0${real}`;
    if (options.retain && mode === 'session') {
      const kept = this.retained.get(key);
      if (kept) return kept;
    }
    let entry = this.entries.get(key);
    if (!entry) {
      entry = {
        key,
        cwd,
        ...(python ? { python } : {}),
        ...(pythonError ? { pythonError } : {}),
        owners: 0,
        kernels: {},
        lock: Promise.resolve(),
        background: new Set(),
      };
      this.entries.set(key, entry);
    }
    entry.owners++;
    const session = new Session(this, entry, mode);
    if (options.retain && mode === 'session') this.retained.set(key, session);
    return session;
  }

  /** Runs cells in a session that exists only for this call. */
  async runOnce(cells: CellRequest[], options: SessionOptions & RunOptions = {}): Promise<CellResult[]> {
    const session = await this.session(options);
    try {
      return await session.run(cells, options);
    } finally {
      await session.release();
    }
  }

  /** @internal */
  async release(entry: Entry): Promise<void> {
    entry.owners--;
    if (entry.owners > 0) return;
    this.entries.delete(entry.key);
    await entry.lock;
    await shutdownAll(entry);
  }

  /** @internal A live kernel of `language` for the entry, replacing a dead one. */
  async kernelFor(entry: Entry, language: Language, notices: string[]): Promise<Kernel> {
    const previous = entry.kernels[language];
    if (previous && previous.state !== 'dead') return previous;
    if (previous?.exit?.reason === 'died') {
      notices.push(
        `The previous ${previous.label} kernel had exited (${describeExit(previous.exit)}); a new kernel was started and earlier state is gone.`,
      );
    }
    delete entry.kernels[language];
    if (language === 'py' && !entry.python) {
      throw new ExecutorError(
        `The Python backend is not available: ${entry.pythonError?.message ?? 'no Python'}`,
      );
    }
    const kernel = await Kernel.start({
      language,
      cwd: entry.cwd,
      ...(language === 'py' && entry.python ? { resolved: entry.python } : {}),
      hostEnv: this.hostEnv,
      passEnv: this.settings['env.pass'],
      bridge: this.bridge,
      ...(this.opts.kernelEnv ? { env: this.opts.kernelEnv } : {}),
      ...(this.opts.prelude !== undefined ? { prelude: this.opts.prelude } : {}),
      ...(this.opts.interruptEscalationMs ? { interruptEscalationMs: this.opts.interruptEscalationMs } : {}),
      ...(this.opts.shutdownGraceMs ? { shutdownGraceMs: this.opts.shutdownGraceMs } : {}),
    });
    if (this.disposed) {
      await kernel.shutdown();
      throw new ExecutorError('the executor was disposed while the kernel was starting');
    }
    kernel.on('background', (frame: Frame) => {
      for (const listener of entry.background) listener(frame);
    });
    entry.kernels[language] = kernel;
    return kernel;
  }

  get sessionSignal(): AbortSignal {
    return this.sessionAbort.signal;
  }

  /** Interrupts every running cell of every session; runs that start later are not affected. */
  interruptAll(): void {
    const previous = this.sessionAbort;
    this.sessionAbort = new AbortController();
    previous.abort(new ExecutorError('interrupted'));
  }

  /** Aborts everything running and shuts every kernel down. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.sessionAbort.abort(new ExecutorError('the executor was disposed'));
    const entries = [...this.entries.values()];
    this.entries.clear();
    this.retained.clear();
    await Promise.all(entries.map((e) => shutdownAll(e)));
  }

  /** Live kernels, for diagnostics and tests. */
  get kernels(): Kernel[] {
    return [...this.entries.values()].flatMap((e) => Object.values(e.kernels));
  }
}

/** Shuts down every kernel of the entry (or those of one language). */
async function shutdownAll(entry: Entry, only?: Language): Promise<void> {
  const kernels = LANGUAGES.filter((l) => !only || l === only).flatMap((language) => {
    const kernel = entry.kernels[language];
    delete entry.kernels[language];
    return kernel ? [kernel] : [];
  });
  await Promise.all(kernels.map((k) => k.shutdown()));
}

export class Session {
  private released = false;

  constructor(
    private readonly executor: Executor,
    private readonly entry: Entry,
    readonly mode: KernelMode,
  ) {}

  get cwd(): string {
    return this.entry.cwd;
  }
  /** The session's interpreter; unset when it was opened without one (requirePython: false). */
  get python(): ResolvedPython | undefined {
    return this.entry.python;
  }
  /** The session's Python kernel, if it has been started. */
  get kernel(): Kernel | undefined {
    return this.entry.kernels.py;
  }
  /** The session's kernel of a language, if it has been started. */
  kernelOf(language: Language): Kernel | undefined {
    return this.entry.kernels[language];
  }

  /** Starts a kernel now instead of at the first cell (a front end that shows its state). */
  async start(language: Language = 'py'): Promise<void> {
    await this.executor.kernelFor(this.entry, language, []);
  }

  /** Output the kernel sends between cells (threads of earlier cells); returns an unsubscribe. */
  onBackground(listener: (frame: Frame) => void): () => void {
    this.entry.background.add(listener);
    return () => this.entry.background.delete(listener);
  }

  /** Completions from a kernel for the name before `cursor` (none while a cell runs). */
  complete(code: string, cursor: number, language: Language = 'py'): Promise<Completion> {
    return (
      this.entry.kernels[language]?.complete(code, cursor) ??
      Promise.resolve({ matches: [], start: cursor, end: cursor })
    );
  }

  /** Answers the running cell's input() request. */
  sendInput(value: string): void {
    for (const kernel of Object.values(this.entry.kernels))
      if (kernel.state === 'busy') kernel.sendInput(value);
  }

  /** Interrupts the running cell, if any (the kernel escalates to a kill on its own). */
  interrupt(): boolean {
    let any = false;
    for (const kernel of Object.values(this.entry.kernels)) any = kernel.interrupt() || any;
    return any;
  }

  /** Restarts the kernels (or the one of `language`) now: the next cell starts a fresh one. */
  async restart(language?: Language): Promise<void> {
    await shutdownAll(this.entry, language);
  }

  /**
   * Runs cells in order in this session's kernel. When a cell does not end ok, the later cells
   * are skipped. Runs on one key never overlap: they wait for each other.
   */
  run(cells: CellRequest[], options: RunOptions = {}): Promise<CellResult[]> {
    if (this.released) return Promise.reject(new ExecutorError('this session has been released'));
    const previous = this.entry.lock;
    let unlock!: () => void;
    this.entry.lock = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    return previous.then(async () => {
      try {
        return await this.runCells(cells, options);
      } finally {
        if (this.mode === 'per-call') await this.restart();
        unlock();
      }
    });
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await this.executor.release(this.entry);
  }

  private async runCells(cells: CellRequest[], options: RunOptions): Promise<CellResult[]> {
    const sessionSignal = this.executor.sessionSignal; // interruptAll() during this run aborts it
    const results: CellResult[] = [];
    let failed = false;
    for (const [index, cell] of cells.entries()) {
      if (failed || options.signal?.aborted || sessionSignal.aborted) {
        results.push(skippedResult(index, cell));
        continue;
      }
      const result = await this.runCell(index, cell, options, sessionSignal);
      results.push(result);
      failed = result.status !== 'ok';
    }
    return results;
  }

  private async runCell(
    index: number,
    cell: CellRequest,
    options: RunOptions,
    sessionSignal: AbortSignal,
  ): Promise<CellResult> {
    const language = cell.language ?? 'py';
    const started = performance.now();
    const notices: string[] = [];
    const emit = (event: OutputEvent) => {
      const pending = options.onEvent?.(index, event);
      const kernel = this.entry.kernels[language];
      if (pending instanceof Promise && kernel) {
        kernel.pauseOutput();
        const resume = () => kernel.resumeOutput();
        pending.then(resume, resume);
      }
    };
    const base = baseOf(index, cell);
    const label = LANGUAGE_LABEL[language];
    if (cell.reset) await this.restart(language);
    let kernel: Kernel;
    try {
      kernel = await this.executor.kernelFor(this.entry, language, notices);
    } catch (err) {
      // Front ends that print events (line mode, run, the notebook) show why the cell did not run.
      const fail = (message: string, ename = 'EvalError') => {
        emit({ kind: 'error', ename, evalue: message, traceback: [message] });
        return failedResult(base, performance.now() - started, message, { ename });
      };
      if (err instanceof ExecutorError && language === 'py' && !this.entry.python) {
        return fail(err.message, 'BackendUnavailable');
      }
      return fail(`The ${label} kernel could not be started: ${(err as Error).message}`);
    }
    for (const text of notices) emit({ kind: 'notice', text });

    const fallback =
      options.defaultTimeout === undefined ? this.executor.settings['eval.timeout'] : options.defaultTimeout;
    const seconds =
      cell.timeout !== undefined || fallback !== null
        ? clampTimeout(cell.timeout, fallback ?? undefined)
        : undefined;
    const sink = new OutputSink({
      ...options.sinkLimits,
      ...(options.collectOutput === false ? { keep: false } : {}),
    });
    const collected: Collected = { images: [], json: [], statusEvents: [] };
    const run = () => this.attempt(kernel, cell.code, seconds, sink, collected, options, emit, sessionSignal);
    let outcome = await run();
    let retried = false;
    // A kernel that died on its own is retried once; one that died from our interrupt is not.
    if (outcome.outcome.exit?.reason === 'died' && !outcome.interrupted && options.retryOnDeath !== false) {
      const first = outcome.outcome.exit;
      const notice = `The ${label} kernel died while running this cell (${describeExit(first)}); a new kernel was started and the cell was retried once. State from earlier cells was lost.`;
      notices.push(notice);
      emit({ kind: 'notice', text: notice });
      sink.push(`\n[${notice}]\n`);
      retried = true;
      try {
        kernel = await this.executor.kernelFor(this.entry, language, []);
        outcome = await run();
      } catch (err) {
        sink.end();
        return failedResult(
          base,
          performance.now() - started,
          `The ${label} kernel could not be restarted: ${(err as Error).message}`,
          {
            notices,
          },
        );
      }
    }
    const { outcome: o, timedOut, interrupted } = outcome;
    const exit = o.exit;
    // Our interrupt ended in the kernel's death (a cell that restored the default SIGINT
    // disposition): it counts as killed, like an unanswered interrupt.
    const killed = o.killed || (interrupted && exit !== undefined);
    const notice = noticeFor({ timedOut, killed, exit, retried, seconds, label });
    if (notice) {
      notices.push(notice);
      emit({ kind: 'notice', text: notice });
      if (exit && !timedOut) sink.push(`[${notice}]\n`);
    }
    if (exit && o.error?.ename === 'KernelDied' && o.error.traceback.length) {
      sink.push(`${o.error.traceback.join('\n')}\n`);
    }
    sink.end();
    const status: CellStatus = o.status === 'ok' ? 'ok' : o.cancelled || interrupted ? 'cancelled' : 'error';
    return {
      ...base,
      status,
      exitCode:
        exit?.reason === 'died' && !interrupted
          ? exitCodeOf(exit)
          : status === 'ok'
            ? 0
            : status === 'cancelled'
              ? 130
              : 1,
      executionCount: o.executionCount,
      durationMs: performance.now() - started,
      timedOut,
      kernelKilled: killed,
      retried,
      text: sink.text,
      ...(sink.truncation ? { truncation: sink.truncation } : {}),
      ...collected,
      ...(o.error ? { error: o.error } : {}),
      notices,
    };
  }

  /** One execution of the cell under its watchdog. */
  private async attempt(
    kernel: Kernel,
    code: string,
    seconds: number | undefined,
    sink: OutputSink,
    collected: Collected,
    options: RunOptions,
    emit: (event: OutputEvent) => void,
    sessionSignal: AbortSignal,
  ): Promise<{ outcome: CellOutcome; timedOut: boolean; interrupted: boolean }> {
    const watchdog = new Watchdog(seconds);
    const signals = [watchdog.signal, sessionSignal];
    if (options.signal) signals.push(options.signal);
    const signal = AbortSignal.any(signals);
    const onFrame = (frame: Frame) => {
      switch (frame.type) {
        case 'started':
          watchdog.start();
          emit({ kind: 'started' });
          break;
        case 'stdout':
        case 'stderr':
          sink.push(frame.data);
          emit({ kind: frame.type, text: frame.data });
          break;
        case 'display':
        case 'result': {
          const status = statusEvent(frame.bundle);
          if (status) {
            if (status.op === 'timeout-pause') watchdog.pause();
            else if (status.op === 'timeout-resume') watchdog.resume();
            else collected.statusEvents.push(status);
            emit({ kind: 'status', event: status });
            break;
          }
          // Fields beyond the typed frame: see the README's "Rich output".
          const extra = frame as typeof frame & {
            displayId?: unknown;
            update?: unknown;
            plainIsRepr?: unknown;
          };
          const out = renderBundle(frame.bundle, { plainIsRepr: extra.plainIsRepr === true });
          collected.images.push(...out.images);
          if (out.json !== undefined) collected.json.push(out.json);
          if (out.text !== undefined) sink.push(out.text.endsWith('\n') ? out.text : `${out.text}\n`);
          const displayId = typeof extra.displayId === 'string' ? extra.displayId : undefined;
          emit({
            kind: frame.type,
            images: out.images,
            mimeTypes: out.mimeTypes,
            ...(out.text !== undefined ? { text: out.text } : {}),
            ...(out.markdown !== undefined ? { markdown: out.markdown } : {}),
            ...(out.ansi !== undefined ? { ansi: out.ansi } : {}),
            ...(out.json !== undefined ? { json: out.json } : {}),
            ...(displayId !== undefined ? { displayId } : {}),
            ...(displayId !== undefined && extra.update === true ? { update: true } : {}),
          });
          break;
        }
        case 'error':
          sink.push(`${frame.traceback.join('\n')}\n`);
          emit({ kind: 'error', ename: frame.ename, evalue: frame.evalue, traceback: frame.traceback });
          break;
        case 'input_request':
          emit({ kind: 'input_request', prompt: frame.prompt, password: frame.password });
          break;
        default:
          break;
      }
    };
    try {
      const outcome = await kernel.execute(code, {
        signal,
        onFrame,
        ...(options.allowStdin ? { allowStdin: true } : {}),
      });
      const interrupted = signal.aborted;
      const timedOut =
        watchdog.signal.aborted &&
        watchdog.signal.reason instanceof CellTimeoutError &&
        (outcome.cancelled || outcome.exit !== undefined);
      return { outcome, timedOut, interrupted };
    } finally {
      watchdog.dispose();
    }
  }
}

/** The annotation of how a cell ended, when it ended abnormally. */
function noticeFor(o: {
  timedOut: boolean;
  killed: boolean;
  exit?: KernelExit;
  retried: boolean;
  seconds?: number;
  label: string;
}): string | undefined {
  if (o.timedOut) return o.killed ? TIMEOUT_KILLED_NOTICE : TIMEOUT_NOTICE(o.seconds ?? 0);
  if (o.killed) {
    return o.exit?.reason === 'died'
      ? `The kernel died when it was interrupted (${describeExit(o.exit)}); it will be recreated on the next run.`
      : 'The kernel did not respond to the interrupt and was killed; it will be recreated on the next run.';
  }
  if (o.exit?.reason === 'died') {
    return o.retried
      ? `The ${o.label} kernel died again on the retry (${describeExit(o.exit)}).`
      : `The ${o.label} kernel died (${describeExit(o.exit)}).`;
  }
  if (o.exit?.reason === 'shutdown') return 'The kernel was shut down while this cell was running.';
  if (o.exit?.reason === 'protocol-error') return 'The kernel was stopped: its output could not be read.';
  return undefined;
}

interface Collected {
  images: ImageOutput[];
  json: unknown[];
  statusEvents: StatusEvent[];
}

type Base = Pick<CellResult, 'index' | 'title' | 'language'>;

/** The identity fields of a cell's result. */
export function baseOf(index: number, cell: CellRequest): Base {
  return { index, ...(cell.title ? { title: cell.title } : {}), language: cell.language ?? 'py' };
}

const EMPTY = {
  timedOut: false,
  kernelKilled: false,
  retried: false,
  images: [],
  json: [],
  statusEvents: [],
};

/** A cell that was not run because an earlier one did not succeed (or the run was aborted). */
export function skippedResult(index: number, cell: CellRequest): CellResult {
  return {
    ...baseOf(index, cell),
    status: 'skipped',
    exitCode: null,
    durationMs: 0,
    text: '',
    ...EMPTY,
    notices: [],
  };
}

/** A cell that failed before or outside Python (no kernel, backend unavailable, ...). */
export function failedResult(
  base: Base,
  durationMs: number,
  message: string,
  opts: { ename?: string; notices?: string[] } = {},
): CellResult {
  return {
    ...base,
    status: 'error',
    exitCode: 1,
    durationMs,
    text: `${message}\n`,
    ...EMPTY,
    error: { ename: opts.ename ?? 'EvalError', evalue: message, traceback: [] },
    notices: opts.notices ?? [],
  };
}

export function createExecutor(opts: ExecutorOptions = {}): Executor {
  return new Executor(opts);
}
