/**
 * The kernel client: one kernel process of either language (spawn.ts), its state machine
 * (state.ts), the cell queue, interrupts escalating to a kill, and shutdown (lifetime.ts). Both
 * runners speak the frames of protocol/; a js kernel's raw fd 1/fd 2 output is demultiplexed
 * by rawDemux.ts, a Python kernel's agent() calls are served by bridgeServer.ts.
 */
import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { type Logger, silentLogger } from '../logger.js';
import {
  completeRequest,
  type DoneFrame,
  type ExecuteRequest,
  encodeRequest,
  executeRequest,
  exitRequest,
  type Frame,
  initRequest,
  inputReply,
  LineSplitter,
  parseFrameLine,
  type Request,
} from '../protocol/index.js';
import { BridgeServer } from './bridgeServer.js';
import { reapGroup, settlesWithin, startHostGuard, stopHostGuard, trackLive } from './lifetime.js';
import { cancelledOutcome, deadOutcome, exitOutcome } from './outcomes.js';
import { signalDescendants, signalGroup } from './processGroup.js';
import { RawOutputDemux, type RawStream } from './rawDemux.js';
import { getPreludeSource } from './runnerFile.js';
import type { ResolvedPython } from './runtime.js';
import { type KernelProcess, spawnKernel } from './spawn.js';
import { type KernelState, KernelStateMachine, type StateListener } from './state.js';
import {
  type CellError,
  type CellOutcome,
  COMPLETE_TIMEOUT_MS,
  type Completion,
  describeExit,
  type ExecuteOptions,
  INTERRUPT_ESCALATION_MS,
  type KernelExit,
  type KernelExitReason,
  type KernelLanguage,
  type KernelOptions,
  KernelStartError,
  LANGUAGE_LABEL,
  SHUTDOWN_GRACE_MS,
  START_TIMEOUT_MS,
} from './types.js';

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
/** After the process exits, its pipes get this long to drain (a forked child may hold them). */
const EXIT_DRAIN_MS = 250;
/** How long a js `done` waits for the end-of-cell markers on fd 1 and fd 2. */
const RAW_SYNC_MS = 1_000;
let nextKernelId = 1;

export class Kernel {
  readonly name = `k${nextKernelId++}`;
  readonly language: KernelLanguage;
  /** "Python" or "JavaScript", for messages. */
  readonly label: string;
  python?: ResolvedPython;
  private readonly machine = new KernelStateMachine();
  private readonly logger: Logger;
  private readonly trace: boolean;
  private proc?: KernelProcess;
  private exited!: Promise<KernelExit>;
  private exitInfo?: KernelExit;
  /** Why the host is stopping the process (set with the `stop` event). */
  private stopReason: KernelExitReason = 'shutdown';
  private stopping?: Promise<KernelExit>;
  private protocolError?: string;
  private untrack?: () => void;
  private guard?: ChildProcess;
  private bridge?: BridgeServer;
  private raw?: RawOutputDemux;
  private readonly splitter = new LineSplitter();
  private current?: Cell;
  private readonly queue: Cell[] = [];
  private cellSeq = 0;
  private lastExecutionCount = 0;
  private stderrTail = '';
  private escalation?: NodeJS.Timeout;
  /** A js `done` frame waiting for the raw streams' end-of-cell markers. */
  private heldDone?: { frame: DoneFrame; timer: NodeJS.Timeout };
  private outputPauses = 0;
  private readonly completions = new Map<string, (c: Completion) => void>();
  private readonly backgroundListeners = new Set<(frame: Frame) => void>();

  private constructor(private readonly opts: KernelOptions) {
    this.language = opts.language ?? 'py';
    this.label = LANGUAGE_LABEL[this.language];
    this.logger = opts.logger ?? silentLogger;
    this.trace = opts.trace ?? process.env.PI_PYTHON_IPC_TRACE === '1';
  }

  /** Starts a kernel and resolves once init and the prelude have run. */
  static async start(opts: KernelOptions = {}): Promise<Kernel> {
    const kernel = new Kernel(opts);
    await kernel.boot();
    return kernel;
  }

  get state(): KernelState {
    return this.machine.state;
  }
  get pid(): number | undefined {
    return this.proc?.child.pid;
  }
  get executionCount(): number {
    return this.lastExecutionCount;
  }
  get exit(): KernelExit | undefined {
    return this.exitInfo;
  }
  /** The program the kernel runs in (an interpreter, or node). */
  get executable(): string {
    return this.proc?.executable ?? (this.language === 'js' ? process.execPath : 'python');
  }

  /** Calls `listener` on every change of state; returns the function that unsubscribes it. */
  onState(listener: StateListener): () => void {
    return this.machine.onState(listener);
  }

  /** Frames the kernel sends outside a cell (threads of earlier cells); returns an unsubscribe. */
  onBackground(listener: (frame: Frame) => void): () => void {
    this.backgroundListeners.add(listener);
    return () => {
      this.backgroundListeners.delete(listener);
    };
  }

  private async boot(): Promise<void> {
    const cwd = this.opts.cwd ?? process.cwd();
    try {
      checkDirectory(cwd);
      this.proc = await spawnKernel(this.language, cwd, this.opts, this.logger);
    } catch (err) {
      this.machine.fire('exited');
      throw err;
    }
    this.python = this.proc.python;
    const spawnFailed = this.attach(this.proc);
    try {
      await this.runInit(cwd, spawnFailed);
      this.machine.fire('ready');
    } catch (err) {
      if (this.state !== 'dead') await this.shutdown();
      throw err;
    }
  }

  /** Wires the process's channels; resolves never, rejects when the process cannot be spawned. */
  private attach(proc: KernelProcess): Promise<never> {
    const { child } = proc;
    this.untrack = trackLive(this);
    this.guard = startHostGuard(child.pid);
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
      child.once('error', (err) =>
        reject(new KernelStartError(`Could not start ${proc.executable}: ${err.message}`)),
      );
    });
    spawnFailed.catch(() => {});
    proc.requests.on('error', () => {}); // EPIPE after the kernel died is reported through 'close'
    proc.frames.on('data', (chunk: Buffer) => this.onFrameData(chunk));
    if (proc.syncToken !== undefined && proc.rawStdout) {
      this.raw = new RawOutputDemux(proc.syncToken);
      proc.rawStdout.setEncoding('utf8');
      proc.rawStdout.on('data', (text: string) => this.onRawOutput('stdout', text));
    }
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (text: string) => {
      if (this.trace) this.logger.trace(`[omp-eval ${this.name} stderr] ${text}`);
      // (js: the tail is kept by emitRaw, without the end-of-cell markers)
      if (this.raw) this.onRawOutput('stderr', text);
      else this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_CHARS);
    });
    if (proc.bridge) this.bridge = new BridgeServer(proc.bridge, this.opts.bridge, this.logger);
    return spawnFailed;
  }

  /** The init request (cwd, env, prelude) under the start-up deadline. */
  private async runInit(cwd: string, spawnFailed: Promise<never>): Promise<void> {
    const prelude =
      this.opts.prelude === false || this.language === 'js' ? '' : (this.opts.prelude ?? getPreludeSource());
    const init = this.enqueue(initRequest(`init-${this.name}`, prelude, cwd, this.opts.env), {});
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
        const detail = outcome.error ? outcome.error.traceback.join('\n') : '';
        throw new KernelStartError('The kernel prelude failed', detail);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** What the js process wrote to fd 1 or fd 2 itself: the running cell's, markers taken out. */
  private onRawOutput(stream: RawStream, data: string) {
    this.emitRaw(stream, this.raw?.push(stream, data) ?? data);
    this.releaseHeldDone();
  }

  private emitRaw(stream: RawStream, data: string) {
    if (!data) return;
    if (stream === 'stderr') this.stderrTail = (this.stderrTail + data).slice(-STDERR_TAIL_CHARS);
    const id = this.current?.started ? this.current.request.id : null;
    this.onFrame({ type: stream, id, data });
  }

  private releaseHeldDone(force = false) {
    const held = this.heldDone;
    if (!held) return;
    const id = held.frame.id;
    if (!force && !this.raw?.synced(id)) return;
    this.raw?.forget(id);
    clearTimeout(held.timer);
    this.heldDone = undefined;
    this.onFrame(held.frame, true);
  }

  private write(request: Request) {
    const line = encodeRequest(request);
    if (this.trace) this.logger.trace(`[omp-eval ${this.name} ->] ${line.slice(0, 2000)}`);
    const requests: Writable | undefined = this.proc?.requests;
    if (requests && !requests.destroyed && requests.writable) requests.write(line);
  }

  private onFrameData(chunk: Buffer) {
    let lines: string[];
    try {
      lines = this.splitter.push(chunk);
    } catch (err) {
      // The stream is no longer framed; nothing later can be attributed safely.
      this.protocolError = (err as Error).message;
      this.logger.warn(`${this.label} kernel ${this.name}: ${this.protocolError}`);
      void this.stop('protocol-error', { kill: true });
      return;
    }
    for (const line of lines) {
      if (this.trace) this.logger.trace(`[omp-eval ${this.name} <-] ${line.slice(0, 2000)}`);
      if (!line.trim()) continue;
      const parsed = parseFrameLine(line);
      if (parsed.kind === 'frame') this.onFrame(parsed.frame);
      else
        this.logger.warn(
          `${this.label} kernel ${this.name} sent a line that is not a frame (${parsed.reason}): ${line.slice(0, 200)}`,
        );
    }
  }

  private onFrame(frame: Frame, released = false) {
    if (frame.type === 'done' && frame.rawSync === true && !released) {
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
      for (const listener of this.backgroundListeners) listener(frame);
      return;
    }
    if (frame.type === 'started') {
      cell.started = true;
      if (cell.interruptPending) this.signalCell();
    }
    if (frame.type === 'error' && !cell.error) cell.error = cellErrorOf(frame);
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
      this.machine.fire('done');
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

  /** Runs `code` as a cell. Never rejects: errors, cancellation and kernel death are outcomes. */
  execute(code: string, options: ExecuteOptions = {}): Promise<CellOutcome> {
    return this.enqueue(executeRequest(`${this.name}-c${++this.cellSeq}`, code, options), options);
  }

  private enqueue(request: ExecuteRequest, options: ExecuteOptions): Promise<CellOutcome> {
    return new Promise<CellOutcome>((resolve) => {
      const cell: Cell = { request, options, resolve };
      if (this.state === 'dead') {
        resolve(
          deadOutcome(
            request.id,
            this.lastExecutionCount,
            `The ${this.label} kernel is not running`,
            this.exitInfo,
          ),
        );
        return;
      }
      if (options.signal?.aborted) {
        resolve(cancelledOutcome(request.id, this.lastExecutionCount));
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

  /** Sends the next queued cell when the kernel can take it. */
  private pump() {
    if (this.current || (this.state !== 'idle' && this.state !== 'starting')) return;
    const cell = this.queue.shift();
    if (!cell) return;
    this.current = cell;
    this.machine.fire('run');
    this.write(cell.request);
  }

  private abortCell(cell: Cell) {
    const queued = this.queue.indexOf(cell);
    if (queued !== -1) {
      this.queue.splice(queued, 1);
      this.finish(cell, cancelledOutcome(cell.request.id, this.lastExecutionCount));
    } else if (this.current === cell) {
      this.interrupt();
    }
  }

  /** Stops reading the kernel's output (it blocks on its writes) until resumeOutput(). Counted. */
  pauseOutput(): void {
    if (this.outputPauses++ === 0) for (const stream of this.outputs()) stream.pause();
  }

  resumeOutput(): void {
    if (this.outputPauses > 0 && --this.outputPauses === 0)
      for (const stream of this.outputs()) stream.resume();
  }

  private outputs(): Readable[] {
    const proc = this.proc;
    if (!proc) return [];
    return proc.rawStdout ? [proc.frames, proc.rawStdout, proc.stderr] : [proc.frames];
  }

  /**
   * Completions for the name before `cursor`. Only an idle kernel answers (cells run on the same
   * thread); otherwise, or after `timeoutMs` (jedi's first import is slow), there are none.
   */
  complete(code: string, cursor: number, timeoutMs = COMPLETE_TIMEOUT_MS): Promise<Completion> {
    const none: Completion = { matches: [], start: cursor, end: cursor };
    if (this.state !== 'idle') return Promise.resolve(none);
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
      this.write(completeRequest(id, code, cursor));
    });
  }

  /** Answers the running cell's input_request. */
  sendInput(value: string): void {
    if (this.current) this.write(inputReply(this.current.request.id, value));
  }

  /**
   * Sends SIGINT to the runner. If the cell has not ended within the escalation window, the
   * kernel is stopped and the cell is marked killed. Returns false when there is nothing to stop.
   */
  interrupt(): boolean {
    if (this.state === 'interrupting') return true;
    const cell = this.current;
    if (this.state !== 'busy' || !cell) return false;
    this.machine.fire('interrupt');
    this.bridge?.cancel(cell.request.id);
    // Before the cell has started, the runner would ignore the signal: it waits for `started`.
    if (cell.started) this.signalCell();
    else cell.interruptPending = true;
    const ms = this.opts.interruptEscalationMs ?? INTERRUPT_ESCALATION_MS;
    this.escalation = setTimeout(() => void this.stop('interrupt-timeout'), ms);
    return true;
  }

  /**
   * SIGINT for the running cell: to the runner only for Python (background processes of earlier
   * cells go on; the runner forwards it to shell commands). A js runner blocked in execSync()
   * cannot act on it, so there its child processes get it too.
   */
  private signalCell() {
    this.signalRunner('SIGINT');
    const pid = this.pid;
    if (this.language === 'js' && pid) signalDescendants(pid, 'SIGINT');
  }

  private signalRunner(signal: NodeJS.Signals) {
    try {
      this.proc?.child.kill(signal);
    } catch {
      // already gone
    }
  }

  private killGroup(signal: NodeJS.Signals): boolean {
    const pid = this.pid;
    return pid ? signalGroup(pid, signal) : false;
  }

  /** SIGKILL to the kernel's whole group, now (for the host's last moments). */
  killNow(): void {
    this.killGroup('SIGKILL');
    stopHostGuard(this.guard);
  }

  private onClose(code: number | null, signal: NodeJS.Signals | null): KernelExit {
    this.untrack?.();
    const reason: KernelExitReason = this.state === 'stopping' ? this.stopReason : 'died';
    const tail = this.splitter.end();
    if (tail?.trim())
      this.logger.warn(`${this.label} kernel ${this.name} ended inside a frame: ${tail.slice(0, 200)}`);
    const exit: KernelExit = {
      code,
      signal,
      reason,
      stderrTail: this.stderrTail.split('\n').slice(-40).join('\n'),
    };
    this.exitInfo = exit;
    this.machine.fire('exited');
    // Every pipe is drained now: what the raw streams held back is output, and a held `done`
    // finishes its cell.
    for (const stream of ['stdout', 'stderr'] as const) this.emitRaw(stream, this.raw?.end(stream) ?? '');
    this.releaseHeldDone(true);
    clearTimeout(this.escalation);
    const context = {
      label: this.label,
      executionCount: this.lastExecutionCount,
      protocolError: this.protocolError,
    };
    const running = this.current;
    if (running)
      this.finish(
        running,
        exitOutcome(
          { id: running.request.id, ...(running.error ? { error: running.error } : {}) },
          true,
          exit,
          context,
        ),
      );
    for (const cell of this.queue.splice(0))
      this.finish(cell, exitOutcome({ id: cell.request.id }, false, exit, context));
    this.current = undefined;
    stopHostGuard(this.guard);
    this.bridge?.close();
    // A kernel that died on its own may leave its cells' children behind.
    if (reason === 'died') void reapGroup(this.pid, this.opts.shutdownGraceMs ?? SHUTDOWN_GRACE_MS);
    return exit;
  }

  /**
   * Stops the kernel and every process in its group: `exit` request and stdin closed, then
   * SIGTERM, then SIGKILL, each after a grace period. Idempotent.
   */
  shutdown(): Promise<KernelExit> {
    return this.stop('shutdown');
  }

  private stop(reason: KernelExitReason, opts: { kill?: boolean } = {}): Promise<KernelExit> {
    this.stopping ??= this.stopSequence(reason, opts.kill === true);
    return this.stopping;
  }

  private async stopSequence(reason: KernelExitReason, kill: boolean): Promise<KernelExit> {
    const grace = this.opts.shutdownGraceMs ?? SHUTDOWN_GRACE_MS;
    if (!this.proc) return { code: null, signal: null, reason: 'shutdown', stderrTail: '' };
    if (this.state !== 'dead') {
      const idle = this.state === 'idle';
      this.stopReason = reason;
      this.machine.fire('stop');
      if (kill) {
        this.killGroup('SIGKILL');
      } else {
        if (idle) this.write(exitRequest());
        this.proc.requests.end();
        let done = idle && (await settlesWithin(this.exited, grace));
        if (!done) {
          this.killGroup('SIGTERM');
          done = await settlesWithin(this.exited, grace);
        }
        if (!done) this.killGroup('SIGKILL');
      }
    }
    const exit = await this.exited;
    await reapGroup(this.pid, grace);
    return exit;
  }
}

function checkDirectory(cwd: string) {
  let st: ReturnType<typeof statSync> | undefined;
  try {
    st = statSync(cwd);
  } catch {
    // reported below
  }
  if (!st?.isDirectory()) {
    throw new KernelStartError(
      st ? `Working directory is not a directory: ${cwd}` : `Working directory does not exist: ${cwd}`,
    );
  }
}

function cellErrorOf(frame: Extract<Frame, { type: 'error' }>): CellError {
  return {
    ename: frame.ename,
    evalue: frame.evalue,
    traceback: frame.traceback,
    ...(frame.exitCode !== undefined ? { exitCode: frame.exitCode } : {}),
  };
}
