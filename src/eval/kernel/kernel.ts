/**
 * The kernel client: one kernel process of either language (spawn.ts), its state machine
 * (state.ts), the cell queue, interrupts escalating to a kill, and shutdown (lifetime.ts). Both
 * runners speak the frames of protocol/ and write their raw fd 1/fd 2 output straight to the
 * host, merged in order with the frames by rawDemux.ts; agent() calls are served by
 * bridgeServer.ts.
 */
import { type Logger, silentLogger } from '../logger.js';
import {
  type ExecuteRequest,
  executeRequest,
  type Frame,
  initRequest,
  inputReply,
} from '../protocol/index.js';
import { KernelChannel, type ProcessEnd } from './channel.js';
import { endProcess, reapGroup } from './lifetime.js';
import { type Cell, cancelledOutcome, cellErrorOf, deadOutcome, exitOutcome } from './outcomes.js';
import type { ResolvedPython } from './python.js';
import { KernelQueries } from './queries.js';
import { PendingReplies } from './replies.js';
import { getPreludeSource } from './runnerFile.js';
import { spawnKernel } from './spawn.js';
import { awaitInit, checkDirectory } from './startup.js';
import { type KernelState, KernelStateMachine, type StateListener } from './state.js';
import {
  type CellOutcome,
  COMPLETE_TIMEOUT_MS,
  type Completeness,
  type Completion,
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
  VARIABLES_TIMEOUT_MS,
  type Variables,
} from './types.js';

let nextKernelId = 1;
/** How often a js cell that has not ended gets SIGINT again while it is being interrupted. */
const JS_REINTERRUPT_MS = 1_000;

export class Kernel {
  readonly name = `k${nextKernelId++}`;
  readonly language: KernelLanguage;
  /** "Python" or "JavaScript", for messages. */
  readonly label: string;
  python?: ResolvedPython;
  private readonly machine = new KernelStateMachine();
  private readonly logger: Logger;
  private readonly trace: boolean;
  private channel?: KernelChannel;
  private exited!: Promise<KernelExit>;
  private exitInfo?: KernelExit;
  /** Why the host is stopping the process (set with the `stop` event). */
  private stopReason: KernelExitReason = 'shutdown';
  private stopping?: Promise<KernelExit>;
  private protocolError?: string;
  private current?: Cell;
  private readonly queue: Cell[] = [];
  private cellSeq = 0;
  private lastExecutionCount = 0;
  private escalation?: NodeJS.Timeout;
  private reinterrupt?: NodeJS.Timeout;
  private readonly replies = new PendingReplies();
  private readonly queries: KernelQueries;
  private readonly backgroundListeners = new Set<(frame: Frame) => void>();

  private constructor(private readonly opts: KernelOptions) {
    this.language = opts.language ?? 'py';
    this.label = LANGUAGE_LABEL[this.language];
    this.logger = opts.logger ?? silentLogger;
    this.trace = opts.trace ?? process.env.PI_PYTHON_IPC_TRACE === '1';
    this.queries = new KernelQueries(
      {
        state: () => this.state,
        label: this.label,
        nextId: (kind) => `${this.name}-${kind}${++this.cellSeq}`,
        write: (request) => this.write(request),
        idleBy: (deadline) => this.machine.idleBy(deadline),
        // Only while no cell has started: then the runner is answering the query.
        interruptQuery: () => {
          if (!this.current?.started) this.channel?.signalRunner('SIGINT');
        },
      },
      this.replies,
    );
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
    return this.channel?.pid;
  }
  /** The runner's pid on the host: `pid` is the spawned process's, bwrap's in a sandbox. */
  get runnerPid(): number | undefined {
    return this.channel?.runnerPid;
  }
  get executionCount(): number {
    return this.lastExecutionCount;
  }
  get exit(): KernelExit | undefined {
    return this.exitInfo;
  }
  /** The program the kernel runs in (an interpreter, or node). */
  get executable(): string {
    return this.channel?.proc.executable ?? (this.language === 'js' ? process.execPath : 'python');
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
    let channel: KernelChannel;
    try {
      checkDirectory(cwd);
      const proc = await spawnKernel(this.language, cwd, this.opts, this.logger);
      channel = new KernelChannel(
        proc,
        {
          onFrame: (frame) => this.onFrame(frame),
          // Raw output written before the cell's `started` barrier is read before that frame.
          rawOwner: () => (this.current?.started ? this.current.request.id : null),
          onProtocolError: (message) => this.onProtocolError(message),
        },
        {
          name: this.name,
          label: this.label,
          logger: this.logger,
          trace: this.trace,
          ...(this.opts.bridge ? { bridge: this.opts.bridge } : {}),
          ...(this.opts.rawSyncMs !== undefined ? { rawSyncMs: this.opts.rawSyncMs } : {}),
        },
      );
    } catch (err) {
      this.machine.fire('exited');
      throw err;
    }
    this.channel = channel;
    this.python = channel.proc.python;
    this.exited = channel.closed.then((end) => this.onClose(end));
    const spawnFailed = channel.spawnFailed.catch((err: Error) => {
      throw new KernelStartError(err.message);
    });
    try {
      await this.runInit(cwd, spawnFailed);
      this.machine.fire('ready');
    } catch (err) {
      if (this.state !== 'dead') await this.shutdown();
      throw err;
    }
  }

  /** The init request (cwd, env, prelude) under the start-up deadline. */
  private runInit(cwd: string, spawnFailed: Promise<never>): Promise<void> {
    const { opts } = this;
    const prelude =
      opts.prelude === false || this.language === 'js' ? '' : (opts.prelude ?? getPreludeSource());
    return awaitInit(
      this.enqueue(initRequest(`init-${this.name}`, prelude, cwd, opts.env, this.channel?.proc.frameKey), {}),
      spawnFailed,
      {
        label: this.label,
        executable: () => this.executable,
        timeoutMs: opts.startTimeoutMs ?? START_TIMEOUT_MS,
        stderrTail: () => this.channel?.stderrTail ?? '',
        shutdown: () => this.shutdown(),
      },
    );
  }

  private write(request: Parameters<KernelChannel['write']>[0]) {
    this.channel?.write(request);
  }

  /** The frame stream broke: nothing later can be attributed safely, so the kernel is killed. */
  private onProtocolError(message: string) {
    this.protocolError = message;
    this.logger.warn(`${this.label} kernel ${this.name}: ${message}`);
    void this.stop('protocol-error', { kill: true });
  }

  private onFrame(received: Frame) {
    const sandbox = this.channel?.proc.sandbox;
    // An error the sandbox caused (network off, a read-only place, the memory limit) says so.
    const frame = received.type === 'error' && sandbox ? sandbox.annotate(received) : received;
    if (
      frame.type === 'complete_reply' ||
      frame.type === 'is_complete_reply' ||
      frame.type === 'variables_reply'
    ) {
      this.replies.answer(frame);
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
      clearInterval(this.reinterrupt);
      this.escalation = undefined;
    }
    if (cell.onAbort) cell.options.signal?.removeEventListener('abort', cell.onAbort);
    cell.resolve(outcome);
  }

  /** Runs `code` as a cell. Never rejects: errors, cancellation and kernel death are outcomes. */
  execute(code: string, options: ExecuteOptions = {}): Promise<CellOutcome> {
    const id = `${this.name}-c${++this.cellSeq}`;
    return this.enqueue(executeRequest(id, code, options), options);
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
    this.channel?.pause();
  }

  resumeOutput(): void {
    this.channel?.resume();
  }

  /** Completions for the name before `cursor` (none from a busy kernel, or after `timeoutMs`). */
  complete(code: string, cursor: number, timeoutMs = COMPLETE_TIMEOUT_MS): Promise<Completion> {
    return this.queries.complete(code, cursor, timeoutMs);
  }

  /** Whether `code` is a whole cell or needs more lines (`unknown` while the kernel is busy). */
  isComplete(code: string, timeoutMs = COMPLETE_TIMEOUT_MS): Promise<Completeness> {
    return this.queries.isComplete(code, timeoutMs);
  }

  /** The names the user defined (at most `limit` described), once the running cell is over. */
  variables(limit: number, timeoutMs = VARIABLES_TIMEOUT_MS): Promise<Variables> {
    return this.queries.variables(limit, timeoutMs);
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
    this.channel?.cancelBridgeCalls(cell.request.id);
    // Before the cell has started, the runner would ignore the signal: it waits for `started`.
    if (cell.started) this.signalCell();
    else cell.interruptPending = true;
    const ms = this.opts.interruptEscalationMs ?? INTERRUPT_ESCALATION_MS;
    this.escalation = setTimeout(() => void this.stop('interrupt-timeout'), ms);
    // Node can swallow a SIGINT that lands as a cell's synchronous part ends (vm's breakOnSigint
    // watchdog has it, and no code is left to break): a js cell gets it again until it ends.
    if (this.language === 'js')
      this.reinterrupt = setInterval(() => this.current?.started && this.signalCell(), JS_REINTERRUPT_MS);
    return true;
  }

  /**
   * SIGINT for the running cell: to the runner only for Python (background processes of earlier
   * cells go on; the runner forwards it to shell commands). A js runner blocked in execSync()
   * cannot act on it, so there its child processes get it too.
   */
  private signalCell() {
    this.channel?.signalRunner('SIGINT');
    if (this.language === 'js') this.channel?.signalDescendants('SIGINT');
  }

  private onClose({ code, signal }: ProcessEnd): KernelExit {
    // Every pipe is drained now: what the merge held back reaches its cell first, and the stderr
    // tail (read below: an out-of-memory message says why the kernel died) is whole.
    const tail = this.channel?.finishStreams();
    if (tail?.trim())
      this.logger.warn(`${this.label} kernel ${this.name} ended inside a frame: ${tail.slice(0, 200)}`);
    let reason: KernelExitReason = this.state === 'stopping' ? this.stopReason : 'died';
    const stderrTail = (this.channel?.stderrTail ?? '').split('\n').slice(-40).join('\n');
    const sandbox = this.channel?.proc.sandbox;
    const memoryLimitMb =
      reason === 'died' ? sandbox?.memoryExceeded({ code, signal }, stderrTail) : undefined;
    if (memoryLimitMb) reason = 'memory-limit';
    const exit: KernelExit = {
      code,
      signal,
      reason,
      stderrTail,
      ...(memoryLimitMb ? { memoryLimitMb } : {}),
    };
    this.exitInfo = exit;
    this.machine.fire('exited');
    clearTimeout(this.escalation);
    clearInterval(this.reinterrupt);
    const context = {
      label: this.label,
      executionCount: this.lastExecutionCount,
      protocolError: this.protocolError,
    };
    const running = this.current;
    this.current = undefined;
    if (running) {
      const cell = { id: running.request.id, ...(running.error ? { error: running.error } : {}) };
      const outcome = exitOutcome(cell, true, exit, context);
      // A started cell received the kernel's last stderr as its own output: not repeated here.
      if (running.started && outcome.error?.ename === 'KernelDied') outcome.error.traceback = [];
      this.finish(running, outcome);
    }
    for (const cell of this.queue.splice(0))
      this.finish(cell, exitOutcome({ id: cell.request.id }, false, exit, context));
    // A kernel that died on its own may leave its cells' children behind.
    const reaped =
      reason === 'died' || reason === 'memory-limit'
        ? reapGroup(this.pid, this.opts.shutdownGraceMs ?? SHUTDOWN_GRACE_MS, this.channel?.exitedAt)
        : Promise.resolve();
    void reaped.then(() => sandbox?.dispose());
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
    const channel = this.channel;
    if (!channel) return { code: null, signal: null, reason: 'shutdown', stderrTail: '' };
    if (this.state !== 'dead') {
      const idle = this.state === 'idle';
      this.stopReason = reason;
      this.machine.fire('stop');
      await endProcess(channel, this.exited, { idle, kill, graceMs: grace });
    }
    const exit = await this.exited;
    await reapGroup(this.pid, grace, channel.exitedAt);
    await channel.proc.sandbox?.dispose(); // (its temp dir is gone when shutdown() resolves)
    return exit;
  }
}
