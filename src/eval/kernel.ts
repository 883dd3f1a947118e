/**
 * The kernel client: starts a kernel (runner.py in a Python, or runner.cjs in a Node child) in its
 * own process group, runs cells one at a time, interrupts them (escalating to a kill), and shuts
 * the whole process group down. Both runners speak the same frames (protocol.ts).
 *
 * Python: requests on stdin, frames on stdout, the bridge on fd 3. JavaScript: frames on fd 3,
 * requests on fd 4; what the process writes to fd 1 and fd 2 (child processes, native code) is
 * the running cell's stdout and stderr.
 *
 * States: starting → idle ⇄ busy → interrupting → (idle | dead); any state → dead.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { statSync } from 'node:fs';
import type { Duplex, Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { groupAlive, signalDescendants, signalGroup } from './processGroup.js';
import {
  type ExecuteRequest,
  encodeRequest,
  type Frame,
  LineSplitter,
  parseLine,
  type Request,
} from './protocol.js';
import { ensureRunnerFile, getPreludeSource } from './runnerFile.js';
import { filterEnv, kernelEnv, type ResolvedPython, resolvePython } from './runtime.js';

export type KernelLanguage = 'py' | 'js';

/** The name a kernel of each language goes by in messages. */
export const LANGUAGE_LABEL: Record<KernelLanguage, string> = { py: 'Python', js: 'JavaScript' };

/** The JavaScript runner, beside the compiled code as in the sources (copied by the build). */
const JS_RUNNER = fileURLToPath(new URL('../js/runner.cjs', import.meta.url));

export type KernelState = 'starting' | 'idle' | 'busy' | 'interrupting' | 'dead';

export const INTERRUPT_ESCALATION_MS = 5_000;
export const SHUTDOWN_GRACE_MS = 1_000;
export const START_TIMEOUT_MS = 20_000;

export interface KernelOptions {
  /** The kernel's language (default py). */
  language?: KernelLanguage;
  /** Working directory of the kernel (validated before anything starts). */
  cwd?: string;
  /** An explicit interpreter: skips discovery (py). */
  python?: string;
  /** An interpreter resolved earlier (skips resolution and probing). */
  resolved?: ResolvedPython;
  /** The host environment to filter (default: process.env). */
  hostEnv?: NodeJS.ProcessEnv;
  /** Entries set in the kernel's os.environ at init, after filtering. */
  env?: Record<string, string>;
  /** Host variables passed through although the filter would drop them (--pass-env). */
  passEnv?: readonly string[];
  startTimeoutMs?: number;
  interruptEscalationMs?: number;
  shutdownGraceMs?: number;
  /** Log every frame in both directions to stderr (default: PI_PYTHON_IPC_TRACE=1). */
  trace?: boolean;
  /** The prelude run once at start; false for none. */
  prelude?: string | false;
  /** Answers agent() and completion() calls of cells; without it they fail with a clear error. */
  bridge?: BridgeHandler;
}

/** A call from the prelude's agent() or completion() to the host. */
export interface BridgeRequest {
  kind: string;
  payload: Record<string, unknown>;
}

/** Answers one bridge call; `signal` aborts when the cell is interrupted or the kernel stops. */
export type BridgeHandler = (request: BridgeRequest, signal: AbortSignal) => Promise<unknown>;

export interface ExecuteOptions {
  silent?: boolean;
  storeHistory?: boolean;
  /** Let input() ask the host (input_request frames, answered with sendInput). */
  allowStdin?: boolean;
  /** Every frame of this cell as it arrives, `done` included. */
  onFrame?: (frame: Frame) => void;
  /** Aborting interrupts the running cell, or drops it from the queue. */
  signal?: AbortSignal;
}

export interface KernelExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why the process ended: we shut it down, we killed it after an unanswered interrupt, or it died. */
  reason: 'shutdown' | 'interrupt-timeout' | 'died' | 'protocol-error';
  /** The last lines the process wrote to its own stderr. */
  stderrTail: string;
}

export interface Completion {
  matches: string[];
  /** The text from start to end (the name before the cursor) is what a match replaces. */
  start: number;
  end: number;
}

export interface CellError {
  ename: string;
  evalue: string;
  traceback: string[];
}

export interface CellOutcome {
  id: string;
  status: 'ok' | 'error';
  executionCount: number;
  cancelled: boolean;
  /** The interrupt was not answered in time and the kernel was killed. */
  killed: boolean;
  error?: CellError;
  /** Set when the kernel process ended while this cell was running or queued. */
  exit?: KernelExit;
}

export class KernelStartError extends Error {
  constructor(
    message: string,
    readonly stderrTail = '',
  ) {
    super(stderrTail ? `${message}\n${stderrTail}` : message);
    this.name = 'KernelStartError';
  }
}

interface Cell {
  request: ExecuteRequest;
  options: ExecuteOptions;
  resolve: (outcome: CellOutcome) => void;
  error?: CellError;
  onAbort?: () => void;
  /** The runner sent `started`: from then on SIGINT reaches the cell. */
  started?: boolean;
  /** interrupt() came before `started`: SIGINT is sent when it arrives. */
  interruptPending?: boolean;
}

const STDERR_TAIL_CHARS = 8_192;

/** What a cell that was running when the kernel ended is told, by the reason it ended. */
const DEATH_MESSAGES: Record<KernelExit['reason'], (label: string, detail?: string) => string> = {
  'interrupt-timeout': () => 'The kernel did not respond to the interrupt and was killed',
  shutdown: () => 'The kernel was shut down while this cell was running',
  died: (label) => `The ${label} kernel died while running this cell`,
  'protocol-error': (_, detail) => `The kernel was stopped because its output could not be read: ${detail}`,
};
const EXIT_DRAIN_MS = 250;
/** The marker the js runner writes to fd 1 and 2 before a cell's `done`: it, token:id, NUL. */
const RAW_MARK = '\u0000omp-sync:';
const RAW_MARK_END = '\u0000';
const RAW_SYNC_MS = 1_000;
let nextKernelId = 1;

/** Kernels whose process has not ended: killed with their groups if the host exits first. */
const live = new Set<Kernel>();
let exitHookInstalled = false;

function killLiveKernelsOnExit() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous: signals are.
  process.on('exit', () => {
    for (const kernel of live) kernel.killNow();
  });
}

// Referenced timers: an unreferenced one awaited at the end of a program lets Node exit with the
// await unsettled (exit code 13).
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function describeExit(exit: Pick<KernelExit, 'code' | 'signal'>): string {
  if (exit.signal) return `signal ${exit.signal}`;
  return `exit code ${exit.code}`;
}

export class Kernel extends EventEmitter {
  readonly name = `k${nextKernelId++}`;
  readonly language: KernelLanguage;
  /** "Python" or "JavaScript", for messages. */
  readonly label: string;
  /** Where requests go and frames come from (see the header). */
  private requests?: Writable;
  private outputs: Readable[] = [];
  private _state: KernelState = 'starting';
  private child?: ChildProcess;
  private readonly splitter = new LineSplitter();
  private current?: Cell;
  private readonly queue: Cell[] = [];
  private cellSeq = 0;
  private stderrTail = '';
  private escalation?: NodeJS.Timeout;
  private killingForInterrupt = false;
  private shuttingDown?: Promise<KernelExit>;
  private exitInfo?: KernelExit;
  private exited!: Promise<KernelExit>;
  private readonly trace: boolean;
  private lastExecutionCount = 0;
  private protocolError?: string;
  python?: ResolvedPython;

  private constructor(private readonly opts: KernelOptions) {
    super();
    this.trace = opts.trace ?? process.env.PI_PYTHON_IPC_TRACE === '1';
    this.language = opts.language ?? 'py';
    this.label = LANGUAGE_LABEL[this.language];
  }

  /** Starts a kernel and resolves once init and the prelude have run. */
  static async start(opts: KernelOptions = {}): Promise<Kernel> {
    const kernel = new Kernel(opts);
    await kernel.boot();
    return kernel;
  }

  get state(): KernelState {
    return this._state;
  }
  get pid(): number | undefined {
    return this.child?.pid;
  }
  get executionCount(): number {
    return this.lastExecutionCount;
  }
  get exit(): KernelExit | undefined {
    return this.exitInfo;
  }

  private setState(state: KernelState) {
    if (this._state === state || this._state === 'dead') return;
    this._state = state;
    this.emit('state', state);
  }

  private async boot(): Promise<void> {
    const cwd = this.opts.cwd ?? process.cwd();
    let st: ReturnType<typeof statSync> | undefined;
    try {
      st = statSync(cwd);
    } catch {
      // reported below
    }
    if (!st?.isDirectory()) {
      this._state = 'dead';
      throw new KernelStartError(
        st ? `Working directory is not a directory: ${cwd}` : `Working directory does not exist: ${cwd}`,
      );
    }
    let child: ChildProcess;
    try {
      child = this.language === 'js' ? this.spawnNode(cwd) : await this.spawnPython(cwd);
    } catch (err) {
      this._state = 'dead';
      throw err;
    }
    this.child = child;
    live.add(this);
    killLiveKernelsOnExit();
    this.guardHost(child.pid);
    this.exited = new Promise<KernelExit>((resolve) => {
      child.once('close', (code, signal) => resolve(this.onClose(code, signal)));
      // 'close' waits for every copy of the pipes; a process the kernel forked may hold them
      // long after the kernel died. Give the pipes a moment to drain, then stop waiting.
      child.once('exit', () => {
        setTimeout(() => {
          for (const stream of child.stdio) stream?.destroy();
        }, EXIT_DRAIN_MS).unref();
      });
    });
    const spawnFailed = new Promise<never>((_, reject) => {
      child.once('error', (err) => {
        reject(new KernelStartError(`Could not start ${this.executable}: ${err.message}`));
      });
    });
    spawnFailed.catch(() => {});
    const js = this.language === 'js';
    const requests = (js ? child.stdio[4] : child.stdin) as Writable;
    const frames = (js ? child.stdio[3] : child.stdout) as Readable;
    const stdout = child.stdout as Readable;
    const stderr = child.stderr as Readable;
    this.requests = requests;
    this.outputs = js ? [frames, stdout, stderr] : [frames];
    requests.on('error', () => {}); // EPIPE after the kernel died is reported through 'close'
    frames.on('data', (chunk: Buffer) => this.onStdout(chunk));
    if (js) {
      // Raw output of the process: the running cell's, like Python's captured fds 1 and 2.
      stdout.setEncoding('utf8');
      stdout.on('data', (text: string) => this.onRawOutput('stdout', text));
      this.openBridge((child.stdio as unknown[])[5] as Duplex | null);
    } else {
      this.openBridge(child.stdio[3] as Duplex | null);
    }
    stderr.setEncoding('utf8');
    stderr.on('data', (text: string) => {
      // (js: the tail is kept by onRawOutput, without the end-of-cell markers)
      if (!js) this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_CHARS);
      if (this.trace) process.stderr.write(`[omp-eval ${this.name} stderr] ${text}`);
      this.emit('stderr', text);
      if (js) this.onRawOutput('stderr', text);
    });

    const prelude = this.opts.prelude === false || js ? '' : (this.opts.prelude ?? getPreludeSource());
    const init = this.run(
      {
        id: `init-${this.name}`,
        code: prelude,
        silent: true,
        storeHistory: false,
        init: true,
        // The js runner stamps every frame with this key: frames a cell writes to fd 3 lack it.
        ...(js ? { frameKey: this.syncToken } : {}),
        cwd,
        ...(this.opts.env ? { env: this.opts.env } : {}),
      },
      {},
    );
    const timeoutMs = this.opts.startTimeoutMs ?? START_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      const outcome = await Promise.race([init, timedOut, spawnFailed]);
      if (outcome === 'timeout') {
        await this.shutdown();
        throw new KernelStartError(
          `The ${this.label} kernel did not become ready within ${timeoutMs / 1000}s`,
          this.stderrTail.trim(),
        );
      }
      if (outcome.exit) {
        throw new KernelStartError(
          `The ${this.label} kernel (${this.executable}) exited during start-up with ${describeExit(outcome.exit)}`,
          outcome.exit.stderrTail.trim(),
        );
      }
      if (outcome.status !== 'ok') {
        await this.shutdown();
        const detail = outcome.error ? outcome.error.traceback.join('\n') : '';
        throw new KernelStartError('The kernel prelude failed', detail);
      }
      this.setState('idle');
    } catch (err) {
      if (this._state !== 'dead') await this.shutdown();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The program the kernel runs in (an interpreter, or node). */
  get executable(): string {
    return this.language === 'js' ? process.execPath : (this.python?.executable ?? 'python');
  }

  private async spawnPython(cwd: string): Promise<ChildProcess> {
    const hostEnv = this.opts.hostEnv ?? process.env;
    this.python =
      this.opts.resolved ?? (await resolvePython({ interpreter: this.opts.python, cwd, env: hostEnv }));
    const runner = ensureRunnerFile();
    return spawn(this.python.executable, ['-u', runner], {
      cwd,
      env: { ...kernelEnv(hostEnv, this.python, this.opts.passEnv), OMP_BRIDGE_FD: '3' },
      detached: true, // own process group: signals reach the cell's children, shutdown reaches them all
      // fd 3: the bridge, a socket pair only this host and this kernel hold.
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
  }

  /**
   * The js kernel's secret, sent in the init request (not in the environment, which a cell can
   * read from /proc): the key on every frame and part of the end-of-cell markers.
   */
  private syncToken = '';

  private spawnNode(cwd: string): ChildProcess {
    const hostEnv = this.opts.hostEnv ?? process.env;
    this.syncToken = randomBytes(16).toString('hex');
    const env = {
      ...filterEnv(hostEnv, ['NODE_PATH', ...(this.opts.passEnv ?? [])]),
      OMP_BRIDGE_FD: '5',
    };
    return spawn(process.execPath, [JS_RUNNER], {
      cwd,
      env,
      detached: true,
      // fd 3: frames out, fd 4: requests in, fd 5: the bridge; stdin is not the cells' to read.
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
  }

  /**
   * Output the JavaScript kernel's process wrote to fd 1 or 2 itself: the running cell's. Before
   * `done`, the runner writes a marker to both fds; `done` is held until both markers have come
   * through, so what a cell's child processes wrote is never taken for the next cell's output.
   */
  private onRawOutput(type: 'stdout' | 'stderr', data: string) {
    const mark = `${RAW_MARK}${this.syncToken}:`;
    let text = this.rawCarry[type] + data;
    this.rawCarry[type] = '';
    for (;;) {
      const at = text.indexOf(mark);
      if (at === -1) break;
      const end = text.indexOf(RAW_MARK_END, at + mark.length);
      if (end === -1) {
        // A marker cut by a chunk boundary waits for the rest of it (a short while: a marker is short).
        if (text.length - at < 256) {
          this.rawCarry[type] = text.slice(at);
          text = text.slice(0, at);
        }
        break;
      }
      this.emitRaw(type, text.slice(0, at));
      this.rawMarks.add(`${type}:${text.slice(at + mark.length, end)}`);
      text = text.slice(end + RAW_MARK_END.length);
    }
    if (!this.rawCarry[type]) {
      // The text may end with the first characters of a marker.
      for (let k = Math.min(mark.length - 1, text.length); k > 0; k--) {
        if (mark.startsWith(text.slice(-k))) {
          this.rawCarry[type] = text.slice(-k);
          text = text.slice(0, -k);
          break;
        }
      }
    }
    this.emitRaw(type, text);
    this.releaseHeldDone();
  }

  private emitRaw(type: 'stdout' | 'stderr', data: string) {
    if (!data) return;
    if (type === 'stderr') this.stderrTail = (this.stderrTail + data).slice(-STDERR_TAIL_CHARS);
    const id = this.current?.started ? this.current.request.id : null;
    this.onFrame({ type, id, data });
  }

  private readonly rawCarry = { stdout: '', stderr: '' };
  /** Markers seen on the raw streams, as "stdout:<cell id>". */
  private readonly rawMarks = new Set<string>();
  /** A `done` frame waiting for the raw streams' markers. */
  private heldDone?: { frame: Frame; timer: NodeJS.Timeout };

  private releaseHeldDone(force = false) {
    const held = this.heldDone;
    if (!held) return;
    const id = held.frame.id;
    if (!force && !(this.rawMarks.has(`stdout:${id}`) && this.rawMarks.has(`stderr:${id}`))) return;
    this.rawMarks.delete(`stdout:${id}`);
    this.rawMarks.delete(`stderr:${id}`);
    clearTimeout(held.timer);
    this.heldDone = undefined;
    this.onFrame(held.frame, true);
  }

  private write(request: Request) {
    const line = encodeRequest(request);
    if (this.trace) process.stderr.write(`[omp-eval ${this.name} ->] ${line.slice(0, 2000)}`);
    const requests = this.requests;
    if (requests && !requests.destroyed && requests.writable) requests.write(line);
  }

  private onStdout(chunk: Buffer) {
    let lines: string[];
    try {
      lines = this.splitter.push(chunk);
    } catch (err) {
      // The stream is no longer framed; nothing later can be attributed safely.
      this.protocolError = (err as Error).message;
      this.emit('noise', '', this.protocolError);
      this.killGroup('SIGKILL');
      return;
    }
    for (const line of lines) {
      if (this.trace) process.stderr.write(`[omp-eval ${this.name} <-] ${line.slice(0, 2000)}\n`);
      if (!line.trim()) continue;
      const parsed = parseLine(line);
      if (parsed.kind === 'noise') {
        this.emit('noise', parsed.line, parsed.reason);
        continue;
      }
      if (this.language === 'js') {
        // Only the runner knows the key: a frame without it was written by a cell.
        const { key, ...frame } = parsed.frame as Frame & { key?: unknown };
        if (key !== this.syncToken) {
          this.emit('noise', line, 'a frame without the kernel key (written by user code?)');
          continue;
        }
        this.onFrame(frame as Frame);
        continue;
      }
      this.onFrame(parsed.frame);
    }
  }

  private onFrame(frame: Frame, released = false) {
    if (frame.type === 'done' && !released && (frame as { rawSync?: unknown }).rawSync === true) {
      // Wait for the raw streams to catch up (bounded: a marker can be lost to a closed fd).
      this.heldDone = { frame, timer: setTimeout(() => this.releaseHeldDone(true), RAW_SYNC_MS) };
      this.releaseHeldDone();
      return;
    }
    if (frame.type === 'complete_reply') {
      const waiting = this.completions.get(frame.id);
      this.completions.delete(frame.id);
      waiting?.({ matches: frame.matches, start: frame.start, end: frame.end });
      return;
    }
    const cell = this.current;
    if (!cell || frame.id !== cell.request.id) {
      this.emit('background', frame);
      return;
    }
    if (frame.type === 'started') {
      cell.started = true;
      if (cell.interruptPending) this.signalCell();
    }
    if (frame.type === 'error' && !cell.error) {
      cell.error = { ename: frame.ename, evalue: frame.evalue, traceback: frame.traceback };
    }
    cell.options.onFrame?.(frame);
    if (frame.type === 'done') {
      this.lastExecutionCount = frame.executionCount;
      this.finish(cell, {
        id: frame.id,
        status: frame.status,
        executionCount: frame.executionCount,
        cancelled: frame.cancelled,
        killed: false,
        ...(cell.error ? { error: cell.error } : {}),
      });
      if (this._state === 'busy' || this._state === 'interrupting') this.setState('idle');
      this.pump();
    }
  }

  private finish(cell: Cell, outcome: CellOutcome) {
    if (this.current === cell) {
      this.current = undefined;
      clearTimeout(this.escalation);
      this.escalation = undefined;
    }
    if (cell.onAbort) cell.options.signal?.removeEventListener('abort', cell.onAbort);
    cell.resolve(outcome);
  }

  /** Runs `code` as a cell. Never rejects: Python errors, cancellation and kernel death are outcomes. */
  execute(code: string, options: ExecuteOptions = {}): Promise<CellOutcome> {
    const silent = options.silent ?? false;
    return this.run(
      {
        id: `${this.name}-c${++this.cellSeq}`,
        code,
        silent,
        storeHistory: options.storeHistory ?? !silent,
        ...(options.allowStdin ? { allowStdin: true } : {}),
      },
      options,
    );
  }

  private run(request: ExecuteRequest, options: ExecuteOptions): Promise<CellOutcome> {
    return new Promise<CellOutcome>((resolve) => {
      const cell: Cell = { request, options, resolve };
      if (this._state === 'dead') {
        resolve(this.deadOutcome(cell, `The ${this.label} kernel is not running`));
        return;
      }
      if (options.signal?.aborted) {
        resolve(this.cancelledOutcome(cell));
        return;
      }
      if (options.signal) {
        cell.onAbort = () => this.abortCell(cell);
        options.signal.addEventListener('abort', cell.onAbort, { once: true });
      }
      this.queue.push(cell);
      this.pump();
    });
  }

  private pump() {
    if (this.current || this._state === 'dead') return;
    const cell = this.queue.shift();
    if (!cell) return;
    this.current = cell;
    if (this._state !== 'starting') this.setState('busy');
    this.write(cell.request);
  }

  private abortCell(cell: Cell) {
    const queued = this.queue.indexOf(cell);
    if (queued !== -1) {
      this.queue.splice(queued, 1);
      this.finish(cell, this.cancelledOutcome(cell));
    } else if (this.current === cell) {
      this.interrupt();
    }
  }

  private cancelledOutcome(cell: Cell): CellOutcome {
    return {
      id: cell.request.id,
      status: 'error',
      executionCount: this.lastExecutionCount,
      cancelled: true,
      killed: false,
    };
  }

  private deadOutcome(cell: Cell, message: string): CellOutcome {
    const exit = this.exitInfo;
    const detail = exit ? ` (${describeExit(exit)})` : '';
    return {
      id: cell.request.id,
      status: 'error',
      executionCount: this.lastExecutionCount,
      cancelled: false,
      killed: false,
      error: {
        ename: 'KernelDied',
        evalue: `${message}${detail}`,
        traceback: exit?.stderrTail ? exit.stderrTail.trimEnd().split('\n').slice(-20) : [],
      },
      ...(exit ? { exit } : {}),
    };
  }

  private outputPauses = 0;

  /** Stops reading the kernel's output (it blocks on its writes) until resumeOutput(). Counted. */
  pauseOutput(): void {
    if (this.outputPauses++ === 0) for (const stream of this.outputs) stream.pause();
  }

  resumeOutput(): void {
    if (this.outputPauses > 0 && --this.outputPauses === 0)
      for (const stream of this.outputs) stream.resume();
  }

  private readonly completions = new Map<string, (c: Completion) => void>();

  /**
   * Completions for the name before `cursor`. Only an idle kernel answers (cells run on the same
   * thread); otherwise, or after `timeoutMs` (jedi's first import is slow), there are none.
   */
  complete(code: string, cursor: number, timeoutMs = 2000): Promise<Completion> {
    const none: Completion = { matches: [], start: cursor, end: cursor };
    if (this._state !== 'idle') return Promise.resolve(none);
    const id = `${this.name}-complete${++this.cellSeq}`;
    return new Promise<Completion>((resolve) => {
      const timer = setTimeout(() => {
        this.completions.delete(id);
        resolve(none);
        // User code (a slow __dir__) holds the kernel: interrupt the completion, not a cell.
        if (!this.current?.started) this.signalRunner('SIGINT');
      }, timeoutMs);
      this.completions.set(id, (completion) => {
        clearTimeout(timer);
        resolve(completion);
      });
      this.write({ type: 'complete', id, code, cursor });
    });
  }

  /** Answers the running cell's input_request. */
  sendInput(value: string): void {
    if (this.current) this.write({ type: 'input_reply', id: this.current.request.id, value });
  }

  /**
   * Sends SIGINT to the runner. If the cell has not ended within the escalation
   * window, the kernel is shut down and the cell is marked killed. Returns false when idle.
   */
  interrupt(): boolean {
    if (this._state !== 'busy' || !this.current) return this._state === 'interrupting';
    this.setState('interrupting');
    this.cancelBridgeCalls(false);
    // Only the runner: background processes that earlier cells started keep running. Before the
    // cell has started, the runner would ignore the signal, so it waits for `started`.
    if (this.current.started) this.signalCell();
    else this.current.interruptPending = true;
    const ms = this.opts.interruptEscalationMs ?? INTERRUPT_ESCALATION_MS;
    this.escalation = setTimeout(() => {
      this.killingForInterrupt = true;
      void this.shutdown();
    }, ms);
    return true;
  }

  /**
   * SIGINT for the running cell: to the runner only for Python (background processes of earlier
   * cells go on; the runner forwards it to shell commands). A js runner blocked in execSync()
   * cannot act on it, so there its child processes get it too.
   */
  private signalCell() {
    this.signalRunner('SIGINT');
    if (this.language === 'js' && this.child?.pid) signalDescendants(this.child.pid, 'SIGINT');
  }

  private signalRunner(signal: NodeJS.Signals) {
    try {
      this.child?.kill(signal);
    } catch {
      // already gone
    }
  }

  private killGroup(signal: NodeJS.Signals): boolean {
    return this.child?.pid ? signalGroup(this.child.pid, signal) : false;
  }

  private groupAlive(): boolean {
    return this.child?.pid ? groupAlive(this.child.pid) : false;
  }

  private guard?: ChildProcess;
  private bridgeStream?: Duplex;
  /** Bridge calls in flight: answered at once with a cancellation when their cell is interrupted. */
  private readonly bridgeCalls = new Map<number, { cell: string | null; controller: AbortController }>();

  private openBridge(stream: Duplex | null) {
    if (!stream) return;
    this.bridgeStream = stream;
    stream.on('error', () => {});
    const splitter = new LineSplitter(16 * 1024 * 1024);
    stream.on('data', (chunk: Buffer) => {
      let lines: string[];
      try {
        lines = splitter.push(chunk);
      } catch {
        return;
      }
      for (const line of lines) this.onBridgeRequest(line);
    });
  }

  private onBridgeRequest(line: string) {
    let request: { id?: unknown; kind?: unknown; cell?: unknown; payload?: unknown };
    try {
      request = JSON.parse(line);
    } catch {
      return;
    }
    const id = request.id;
    if (typeof id !== 'number' || typeof request.kind !== 'string') return;
    const controller = new AbortController();
    this.bridgeCalls.set(id, { cell: typeof request.cell === 'string' ? request.cell : null, controller });
    const reply = (answer: { ok: boolean; value?: unknown; error?: string }) => {
      if (!this.bridgeCalls.delete(id)) return; // answered already (cancelled)
      this.bridgeStream?.write(`${JSON.stringify({ id, ...answer })}\n`);
    };
    const handler = this.opts.bridge;
    if (!handler) {
      reply({ ok: false, error: `${request.kind}() needs a host that runs it; none is configured` });
      return;
    }
    const payload = (request.payload && typeof request.payload === 'object' ? request.payload : {}) as Record<
      string,
      unknown
    >;
    handler({ kind: request.kind, payload }, controller.signal).then(
      (value) => reply({ ok: true, value }),
      (err: unknown) => reply({ ok: false, error: err instanceof Error ? err.message : String(err) }),
    );
  }

  /** Answers the bridge calls of the running cell (or all of them) with a cancellation. */
  private cancelBridgeCalls(all: boolean) {
    const cell = this.current?.request.id;
    for (const [id, call] of this.bridgeCalls) {
      if (!all && call.cell !== cell) continue;
      call.controller.abort();
      this.bridgeCalls.delete(id);
      this.bridgeStream?.write(
        `${JSON.stringify({ id, ok: false, error: 'cancelled: the cell was interrupted' })}\n`,
      );
    }
  }

  /**
   * The kernel must not outlive this host, even when the host is SIGKILLed while a cell spins in
   * C code holding the GIL (no thread of the kernel could act then). A tiny shell loop in a
   * session of its own watches this process and, once it is gone, kills the kernel's group and
   * session. POSIX only; it is stopped with the kernel.
   */
  private guardHost(pid: number | undefined) {
    if (!pid || process.platform === 'win32') return;
    const script =
      `while kill -0 ${process.pid} 2>/dev/null; do sleep 0.5; done; ` +
      `kill -KILL -${pid} 2>/dev/null; pkill -KILL -s ${pid} 2>/dev/null`;
    try {
      this.guard = spawn('/bin/sh', ['-c', script], { detached: true, stdio: 'ignore' });
      this.guard.on('error', () => {}); // no /bin/sh: the exit handler still covers normal exits
      this.guard.unref();
    } catch {
      // as above
    }
  }

  private stopGuard() {
    if (this.guard?.pid) signalGroup(this.guard.pid, 'SIGKILL');
    this.guard = undefined;
  }

  /** SIGKILL to the kernel's whole group, now (for the host's last moments). */
  killNow(): void {
    this.killGroup('SIGKILL');
    this.stopGuard();
  }

  private onClose(code: number | null, signal: NodeJS.Signals | null): KernelExit {
    live.delete(this);
    // Every pipe is drained now: a cell's `done` waits for nothing more (it finishes the cell, and
    // nothing queued starts: the state is dead by then).
    const drain = () => {
      for (const type of ['stdout', 'stderr'] as const) {
        const carry = this.rawCarry[type];
        this.rawCarry[type] = '';
        this.emitRaw(type, carry);
      }
      this.releaseHeldDone(true);
    };
    const tail = this.splitter.end();
    if (tail?.trim()) this.emit('noise', tail, 'unterminated line at exit');
    const exit: KernelExit = {
      code,
      signal,
      reason: this.protocolError
        ? 'protocol-error'
        : this.killingForInterrupt
          ? 'interrupt-timeout'
          : this.shuttingDown
            ? 'shutdown'
            : 'died',
      stderrTail: this.stderrTail.split('\n').slice(-40).join('\n'),
    };
    this.exitInfo = exit;
    this._state = 'dead';
    drain();
    this.emit('state', 'dead');
    clearTimeout(this.escalation);
    const cells = [...(this.current ? [this.current] : []), ...this.queue.splice(0)];
    for (const cell of cells) {
      const ran = cell === this.current;
      const outcome = this.deadOutcome(
        cell,
        ran
          ? DEATH_MESSAGES[exit.reason](this.label, this.protocolError)
          : 'The kernel exited before this cell ran',
      );
      if (ran && exit.reason === 'interrupt-timeout') {
        outcome.cancelled = true;
        outcome.killed = true;
      }
      if (ran && cell.error) outcome.error = { ...cell.error };
      this.finish(cell, outcome);
    }
    this.current = undefined;
    this.stopGuard();
    for (const call of this.bridgeCalls.values()) call.controller.abort();
    this.bridgeCalls.clear();
    // A kernel that died on its own may leave its cells' children behind.
    if (!this.shuttingDown) void this.reapGroup(this.opts.shutdownGraceMs ?? SHUTDOWN_GRACE_MS);
    this.emit('exit', exit);
    return exit;
  }

  /**
   * Stops the kernel and every process in its group: `exit` request and stdin closed, then
   * SIGTERM, then SIGKILL, each after a grace period. Idempotent.
   */
  shutdown(): Promise<KernelExit> {
    if (this.shuttingDown) return this.shuttingDown;
    const grace = this.opts.shutdownGraceMs ?? SHUTDOWN_GRACE_MS;
    /** True when the kernel exits within `ms`; the timer does not outlive the answer. */
    const within = (ms: number) =>
      new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        void this.exited.then(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    this.shuttingDown = (async () => {
      if (!this.child) {
        this._state = 'dead';
        return { code: null, signal: null, reason: 'shutdown', stderrTail: '' } satisfies KernelExit;
      }
      if (!this.exitInfo) {
        const idle = this._state === 'idle';
        if (idle) this.write({ type: 'exit' });
        this.requests?.end();
        let done = idle && (await within(grace));
        if (!done) {
          this.killGroup('SIGTERM');
          done = await within(grace);
        }
        if (!done) this.killGroup('SIGKILL');
      }
      const exit = await this.exited;
      await this.reapGroup(grace);
      return exit;
    })();
    return this.shuttingDown;
  }

  /** Ends processes the kernel left in its group (children of cells) after it exited. */
  private async reapGroup(grace: number) {
    if (!this.groupAlive()) return;
    this.killGroup('SIGTERM');
    const until = Date.now() + grace;
    while (this.groupAlive() && Date.now() < until) await delay(20);
    this.killGroup('SIGKILL');
  }
}

/** The name the Python-only first version had; the same class. */
export { Kernel as PythonKernel };
