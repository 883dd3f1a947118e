/**
 * A kernel on a Jupyter server behind a local kernel's face (KernelHandle), so the executor and
 * the front ends treat both alike. Cells queue (remoteQueue.ts) and go to the server one at a
 * time; Ctrl-C and timeouts interrupt through the server's interrupt endpoint, and an interrupt
 * left unanswered restarts the kernel through the server (remoteConnection.ts). What the server
 * does to the kernel (a restart, a death, a shutdown) and a lost connection (connectionWatch.ts)
 * end the running cell with the reason.
 */
import type { Kernel as JupyterKernel, KernelMessage } from '@jupyterlab/services';
import type { KernelHandle, RemoteKernelInfo } from '../kernel/handle.js';
import { KernelStateMachine, type StateListener } from '../kernel/state.js';
import {
  type CellOutcome,
  COMPLETE_TIMEOUT_MS,
  type Completion,
  type ExecuteOptions,
  INTERRUPT_ESCALATION_MS,
  type KernelExit,
  VARIABLE_NAME_TIMEOUT_MS,
  VARIABLES_TIMEOUT_MS,
  type Variables,
} from '../kernel/types.js';
import type { Language } from '../language.js';
import { type Logger, silentLogger } from '../logger.js';
import type { Frame } from '../protocol/index.js';
import { readIopub } from './messages.js';
import { type Completeness, remoteComplete, remoteIsComplete } from './queries.js';
import type { RemoteCell } from './remoteCell.js';
import { RemoteConnection } from './remoteConnection.js';
import { RemoteInterrupts } from './remoteInterrupts.js';
import { RemoteCellQueue } from './remoteQueue.js';
import type { KernelSpecSummary, RemoteServer } from './server.js';
import { remoteVariables } from './variables.js';

export interface RemoteKernelOptions {
  server: RemoteServer;
  /** The kernel on the server (started or found by the factory). */
  kernel: { id: string; name: string; spec?: KernelSpecSummary };
  /** Started for this session: shutdown() shuts it down on the server; else it is left running. */
  owned: boolean;
  /** Restart it through the server before the first cell (a fresh start of an attached kernel). */
  restart?: boolean;
  logger?: Logger;
  trace?: boolean;
  startTimeoutMs?: number;
  interruptEscalationMs?: number;
  /** How long a dropped connection may take to come back before the kernel counts as lost. */
  reconnectMs?: number;
}

let nextKernelId = 1;

export class RemoteKernel implements KernelHandle {
  readonly name = `r${nextKernelId++}`;
  /** The session's slot this kernel fills: its cells are the session's default-language cells. */
  readonly language: Language = 'py';
  readonly label: string;
  /** Always unset: no local interpreter runs the cells. */
  python = undefined;
  readonly remote: RemoteKernelInfo;
  readonly pid = undefined;
  readonly runnerPid = undefined;
  private readonly machine = new KernelStateMachine();
  private readonly logger: Logger;
  private readonly link: RemoteConnection;
  private readonly cells: RemoteCellQueue;
  private cellSeq = 0;
  private exitInfo?: KernelExit;
  /** Why the kernel ended, when it did on its own or was lost. */
  private endReason?: string;
  private stopping?: Promise<KernelExit>;
  private readonly interrupts: RemoteInterrupts;
  private readonly backgroundListeners = new Set<(frame: Frame) => void>();

  private constructor(private readonly opts: RemoteKernelOptions) {
    this.logger = opts.logger ?? silentLogger;
    const { kernel, server } = opts;
    this.label = kernel.spec?.display_name ?? kernel.name;
    this.remote = {
      server: server.display,
      kernelName: kernel.name,
      kernelId: kernel.id,
      ...(kernel.spec ? { kernelspec: kernel.spec } : {}),
    };
    this.link = new RemoteConnection(
      {
        server,
        kernel,
        logger: this.logger,
        executable: this.executable,
        startTimeoutMs: opts.startTimeoutMs,
        reconnectMs: opts.reconnectMs,
      },
      {
        onRestarted: (reason, oldSession) => this.onRestarted(reason, oldSession),
        onLost: (ename, reason) => this.die(ename, reason),
        background: (msg) => this.onBackgroundMessage(msg),
        restarted: () => {
          this.cells.executionCount = 0;
        },
      },
    );
    this.cells = new RemoteCellQueue(this.machine, {
      send: (cell) => this.send(cell),
      interrupt: () => this.interrupt(),
      ended: () => this.interrupts.clear(),
    });
    this.interrupts = new RemoteInterrupts(this.link, this.cells, {
      die: (ename, reason) => this.die(ename, reason),
      warn: (message) => this.logger.warn(`${this.executable}: ${message}`),
    });
  }

  /** Connects to the kernel and resolves once it has answered kernel_info. */
  static async open(opts: RemoteKernelOptions): Promise<RemoteKernel> {
    const kernel = new RemoteKernel(opts);
    await kernel.connect();
    return kernel;
  }

  get state() {
    return this.machine.state;
  }
  get executionCount(): number {
    return this.cells.executionCount;
  }
  get exit(): KernelExit | undefined {
    return this.exitInfo;
  }
  /** What runs the cells, for messages. */
  get executable(): string {
    return `${this.remote.kernelName} on ${this.remote.server}`;
  }
  /** Whether this session started the kernel (and shuts it down with itself). */
  get owned(): boolean {
    return this.opts.owned;
  }

  onState(listener: StateListener): () => void {
    return this.machine.onState(listener);
  }

  onBackground(listener: (frame: Frame) => void): () => void {
    this.backgroundListeners.add(listener);
    return () => {
      this.backgroundListeners.delete(listener);
    };
  }

  private async connect(): Promise<void> {
    try {
      await this.link.open(this.opts.restart === true, (languageInfo) => {
        this.remote.languageInfo = languageInfo as RemoteKernelInfo['languageInfo'];
        this.machine.fire('ready');
      });
    } catch (err) {
      this.machine.fire('exited');
      throw err;
    }
  }

  /** The library's connection to the kernel. */
  private get connection(): JupyterKernel.IKernelConnection {
    return this.link.connection;
  }

  /** Runs `code` as a cell. Never rejects: errors, cancellation and a lost kernel are outcomes. */
  execute(code: string, options: ExecuteOptions = {}): Promise<CellOutcome> {
    const id = `${this.name}-c${++this.cellSeq}`;
    const why = this.endReason ? `: ${this.endReason}` : '';
    const ended = this.state === 'dead' || this.state === 'stopping';
    return this.cells.enqueue(
      id,
      code,
      options,
      ended ? `The ${this.label} kernel is not running${why}` : undefined,
    );
  }

  /** Sends `cell`, now the running one: its messages count while it runs, its reply ends it. */
  private send(cell: RemoteCell) {
    cell.send(this.connection, {
      running: () => this.cells.current === cell,
      interrupt: () => this.interrupts.send(),
      replied: (reply) => this.cells.end(cell, () => cell.replied(reply, this.cells.executionCount)),
    });
  }

  /**
   * Interrupts the running cell through the server. Unanswered within the escalation window, the
   * kernel is restarted through the server and the cell ends saying its state was lost.
   */
  interrupt(): boolean {
    if (this.state === 'interrupting') return true;
    const cell = this.cells.current;
    if (this.state !== 'busy' || !cell) return false;
    this.machine.fire('interrupt');
    this.interrupts.start(cell, this.opts.interruptEscalationMs ?? INTERRUPT_ESCALATION_MS);
    return true;
  }

  /**
   * The server restarted the kernel (it died, or someone restarted it): its state is gone. The
   * next cell waits until the restarted kernel answers (`oldSession`: the old kernel's session,
   * whose answers do not count).
   */
  private onRestarted(reason: string, oldSession?: string) {
    this.cells.executionCount = 0;
    this.cells.holdUntil(() => this.awaitRestarted(oldSession));
    const cell = this.cells.current;
    if (cell && !cell.escalated) {
      this.cells.end(cell, () =>
        cell.cutShort('KernelRestarted', `${reason} while this cell was running: its state was lost`, 0),
      );
    } else if (!cell) {
      this.emitBackground({ type: 'stderr', id: null, data: `[${reason}: its state was lost]\n` });
    }
  }

  /** Asks for kernel_info until the restarted kernel answers; one that never does is lost. */
  private async awaitRestarted(oldSession?: string): Promise<void> {
    const waiting = () => this.state !== 'dead' && this.state !== 'stopping';
    if (await this.link.awaitRestarted(oldSession, waiting)) return;
    this.die('KernelDied', `The kernel did not come back after it was restarted on ${this.remote.server}`);
  }

  /** The kernel is gone (dead on the server, shut down by someone, or out of reach). */
  private die(ename: string, reason: string) {
    if (this.state === 'dead' || this.state === 'stopping') return;
    this.endReason = reason;
    this.interrupts.clear();
    this.cells.lost(ename, reason);
    this.machine.fire('exited');
    this.link.drop();
  }

  private onBackgroundMessage(msg: KernelMessage.IIOPubMessage) {
    if (this.cells.current?.msgId === msg.parent_header?.msg_id) return;
    const meaning = readIopub(msg, null);
    if (meaning.kind === 'frame' && meaning.frame.type !== 'error') this.emitBackground(meaning.frame);
  }

  private emitBackground(frame: Frame) {
    for (const listener of this.backgroundListeners) listener(frame);
  }

  /** Stops reading the kernel's messages (the front end is behind) until resumeOutput(). Counted. */
  pauseOutput(): void {
    this.link.sockets.pause();
  }

  resumeOutput(): void {
    this.link.sockets.resume();
  }

  /** Completions for the name before `cursor` (complete_request); none while a cell runs. */
  async complete(code: string, cursor: number, timeoutMs = COMPLETE_TIMEOUT_MS): Promise<Completion> {
    if (this.state !== 'idle') return { matches: [], start: cursor, end: cursor };
    return remoteComplete(this.connection, code, cursor, timeoutMs);
  }

  /** Whether `code` is a whole cell for the kernel's language (is_complete_request). */
  async isComplete(code: string, timeoutMs = COMPLETE_TIMEOUT_MS): Promise<Completeness> {
    if (this.state !== 'idle') return { status: 'unknown' };
    return remoteIsComplete(this.connection, code, timeoutMs);
  }

  /**
   * The user's names, listed by a silent user expression (variables.ts), between cells: a Python
   * kernel's only; another language's, or a busy kernel, gives the reason.
   */
  async variables(
    limit: number,
    timeoutMs = VARIABLES_TIMEOUT_MS,
    nameTimeoutMs = VARIABLE_NAME_TIMEOUT_MS,
  ): Promise<Variables> {
    const failed = (error: string): Variables => ({ variables: [], total: 0, error });
    const language = this.remote.languageInfo?.name;
    if (language !== 'python')
      return failed(
        `listing variables needs a Python kernel (this kernel on ${this.remote.server} is ${language ?? 'of an unknown language'}); list them in a cell instead`,
      );
    if (this.state !== 'idle') return failed(`the kernel is ${this.state}`);
    return remoteVariables(this.connection, limit, timeoutMs, nameTimeoutMs);
  }

  /**
   * Answers the running cell's input_request. Jupyter's input_reply has no end of input: `null`
   * is sent as an empty answer.
   */
  sendInput(value: string | null): void {
    this.cells.current?.answerInput(this.connection, value ?? '');
  }

  /**
   * Ends this client's use of the kernel: a kernel this session started is shut down on the
   * server, one it attached to is left running (its running cell interrupted). Idempotent.
   */
  shutdown(): Promise<KernelExit> {
    this.stopping ??= this.stopSequence();
    return this.stopping;
  }

  private async stopSequence(): Promise<KernelExit> {
    const exit: KernelExit = { code: null, signal: null, reason: 'shutdown', stderrTail: '' };
    if (this.state === 'dead') return exit;
    const running = this.cells.current;
    this.machine.fire('stop');
    this.interrupts.clear();
    this.link.stopWatching();
    this.cells.shutDown(exit);
    await this.link.release(this.opts.owned, running !== undefined);
    this.exitInfo = exit;
    this.machine.fire('exited');
    return exit;
  }
}
