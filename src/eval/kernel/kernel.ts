/**
 * The kernel client: one kernel process of either language (started by opening.ts), its state
 * machine (state.ts), its cells (cellQueue.ts), frames routed to their cell, interrupts escalating
 * to a kill, and shutdown (process/lifetime.ts; the exit read by processEnd.ts). Both runners speak the
 * frames of protocol/ and write their raw fd 1/fd 2 output straight to the host, merged in order
 * with the frames by rawDemux.ts; agent() calls are served by bridgeServer.ts.
 */

import type { Language } from '../language.js';
import type { ResolvedPython } from '../launch/python.js';
import { type Logger, silentLogger } from '../logger.js';
import { executeRequest, type Frame, inputReply } from '../protocol/index.js';
import { CellQueue } from './cellQueue.js';
import type { KernelChannel, ProcessEnd } from './channel.js';
import { CellInterrupts } from './interrupts.js';
import { awaitInit, initRequestOf, openChannel } from './opening.js';
import { cleanUpAfter, readExit, stopProcess } from './processEnd.js';
import { KernelQueries } from './queries.js';
import { PendingReplies } from './replies.js';
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
  type KernelOptions,
  KernelStartError,
  LANGUAGE_LABEL,
  SHUTDOWN_GRACE_MS,
  START_TIMEOUT_MS,
  VARIABLES_TIMEOUT_MS,
  type Variables,
} from './types.js';

let nextKernelId = 1;

export class Kernel {
  readonly name = `k${nextKernelId++}`;
  readonly language: Language;
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
  private readonly cells: CellQueue;
  private cellSeq = 0;
  private readonly interrupts: CellInterrupts;
  private readonly replies = new PendingReplies();
  private readonly queries: KernelQueries;
  private readonly backgroundListeners = new Set<(frame: Frame) => void>();

  private constructor(private readonly opts: KernelOptions) {
    this.language = opts.language ?? 'py';
    this.label = LANGUAGE_LABEL[this.language];
    this.logger = opts.logger ?? silentLogger;
    this.trace = opts.trace ?? process.env.PI_PYTHON_IPC_TRACE === '1';
    this.cells = new CellQueue(this.machine, {
      label: this.label,
      exit: () => this.exitInfo,
      write: (request) => this.write(request),
      interrupt: () => this.interrupt(),
      signalInterrupt: () => this.interrupts.signal(),
      ended: () => this.interrupts.clear(),
    });
    this.interrupts = new CellInterrupts({
      language: this.language,
      channel: () => this.channel,
      running: () => this.cells.current,
      escalate: () => void this.stop('interrupt-timeout'),
    });
    this.queries = new KernelQueries(
      {
        state: () => this.state,
        label: this.label,
        nextId: (kind) => `${this.name}-${kind}${++this.cellSeq}`,
        write: (request) => this.write(request),
        idleBy: (deadline) => this.machine.idleBy(deadline),
        // Only while no cell has started: then the runner is answering the query.
        interruptQuery: () => {
          if (!this.cells.current?.started) this.channel?.signalRunner('SIGINT');
        },
      },
      this.replies,
    );
  }

  /** Starts a kernel and resolves once init and the prelude have run. */
  static async start(opts: KernelOptions = {}): Promise<Kernel> {
    const kernel = new Kernel(opts);
    const stop = () => void kernel.shutdown();
    opts.signal?.addEventListener('abort', stop, { once: true });
    try {
      if (opts.signal?.aborted)
        throw new KernelStartError(`The ${kernel.label} kernel was not started: the host is closing`);
      await kernel.boot();
    } finally {
      opts.signal?.removeEventListener('abort', stop);
    }
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
    return this.cells.executionCount;
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
      channel = await openChannel(
        this.language,
        cwd,
        this.opts,
        {
          onFrame: (frame) => this.onFrame(frame),
          // Raw output written before the cell's `started` barrier is read before that frame.
          rawOwner: () => (this.cells.current?.started ? this.cells.current.request.id : null),
          onProtocolError: (message) => this.onProtocolError(message),
        },
        { name: this.name, label: this.label, logger: this.logger, trace: this.trace },
      );
    } catch (err) {
      this.machine.fire('exited');
      throw err;
    }
    this.channel = channel;
    this.python = channel.proc.python;
    this.exited = channel.closed.then((end) => this.onClose(channel, end));
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
    const init = initRequestOf(this.name, this.language, cwd, this.opts, this.channel?.proc.frameKey);
    return awaitInit(this.cells.enqueue(init, {}), spawnFailed, {
      label: this.label,
      executable: () => this.executable,
      timeoutMs: this.opts.startTimeoutMs ?? START_TIMEOUT_MS,
      stderrTail: () => this.channel?.stderrTail ?? '',
      shutdown: () => this.shutdown(),
    });
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
    // An interrupted cell that asks for input again is listening (pdb's prompt after Ctrl-C, a
    // loop around input() that catches KeyboardInterrupt): no kill for it.
    if (frame.type === 'input_request' && this.state === 'interrupting') {
      this.interrupts.clear();
      this.machine.fire('asked');
    }
    if (!this.cells.deliver(frame)) for (const listener of this.backgroundListeners) listener(frame);
  }

  /** Runs `code` as a cell. Never rejects: errors, cancellation and kernel death are outcomes. */
  execute(code: string, options: ExecuteOptions = {}): Promise<CellOutcome> {
    const id = `${this.name}-c${++this.cellSeq}`;
    return this.cells.enqueue(executeRequest(id, code, options), options);
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

  /**
   * The names the user defined (at most `limit` described), once the running cell is over; a name
   * whose summary takes longer than `nameTimeoutMs` is listed as skipped.
   */
  variables(limit: number, timeoutMs = VARIABLES_TIMEOUT_MS, nameTimeoutMs?: number): Promise<Variables> {
    return this.queries.variables(limit, timeoutMs, nameTimeoutMs);
  }

  /** Answers the running cell's input_request; `null`: the host's input has ended. */
  sendInput(value: string | null): void {
    const cell = this.cells.current;
    if (cell) this.write(inputReply(cell.request.id, value));
  }

  /**
   * Sends SIGINT to the runner. If the cell has not ended within the escalation window, the
   * kernel is stopped and the cell is marked killed. Returns false when there is nothing to stop.
   */
  interrupt(): boolean {
    if (this.state === 'interrupting') return true;
    const cell = this.cells.current;
    if (this.state !== 'busy' || !cell) return false;
    this.machine.fire('interrupt');
    this.interrupts.start(cell, this.opts.interruptEscalationMs ?? INTERRUPT_ESCALATION_MS);
    return true;
  }

  private onClose(channel: KernelChannel, end: ProcessEnd): KernelExit {
    const exit = readExit(
      channel,
      end,
      () => (this.state === 'stopping' ? this.stopReason : 'died'),
      (text) => this.logger.warn(`${this.label} kernel ${this.name} ended inside a frame: ${text}`),
    );
    this.exitInfo = exit;
    this.machine.fire('exited');
    this.interrupts.clear();
    this.cells.endAll(exit, this.protocolError);
    void cleanUpAfter(exit, channel, this.opts.shutdownGraceMs ?? SHUTDOWN_GRACE_MS);
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
    const channel = this.channel;
    if (!channel) return { code: null, signal: null, reason: 'shutdown', stderrTail: '' };
    const end = this.state !== 'dead';
    const idle = this.state === 'idle';
    if (end) {
      this.stopReason = reason;
      this.machine.fire('stop');
    }
    const graceMs = this.opts.shutdownGraceMs ?? SHUTDOWN_GRACE_MS;
    return await stopProcess(channel, this.exited, { end, idle, kill, graceMs });
  }
}
