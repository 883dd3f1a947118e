/**
 * A kernel on a Jupyter server behind a local kernel's face (KernelHandle), so the executor and
 * the front ends treat both alike. Cells queue here and go to the server one at a time; Ctrl-C
 * and timeouts interrupt through the server's interrupt endpoint, and an interrupt left
 * unanswered restarts the kernel through the server. What the server does to the kernel (a
 * restart, a death, a shutdown) and a lost connection end the running cell with the reason.
 */
import type { Kernel as JupyterKernel, KernelMessage } from '@jupyterlab/services';
import type { KernelHandle, RemoteKernelInfo } from '../kernel/handle.js';
import { cancelledOutcome, deadOutcome } from '../kernel/outcomes.js';
import { KernelStateMachine, type StateListener } from '../kernel/state.js';
import {
  type CellOutcome,
  COMPLETE_TIMEOUT_MS,
  type Completion,
  type ExecuteOptions,
  INTERRUPT_ESCALATION_MS,
  type KernelExit,
  type KernelLanguage,
  KernelStartError,
  type Variables,
} from '../kernel/types.js';
import { type Logger, silentLogger } from '../logger.js';
import type { Frame } from '../protocol/index.js';
import { ConnectionWatch } from './connectionWatch.js';
import { withDeadline } from './deadline.js';
import { readIopub } from './messages.js';
import { type Completeness, remoteComplete, remoteIsComplete } from './queries.js';
import { type ExecuteReply, RemoteCell } from './remoteCell.js';
import { type KernelSpecSummary, REQUEST_TIMEOUT_MS, type RemoteServer } from './server.js';
import { SocketPause } from './socketPause.js';

/** A kernel starting on a remote machine (a pod, a YARN container) may take its time. */
export const REMOTE_START_TIMEOUT_MS = 60_000;
/** How long a restart through the server may take, the kernel's start included. */
export const RESTART_TIMEOUT_MS = 60_000;
/** How often a kernel that has not answered kernel_info since the websocket opened is asked again. */
const KERNEL_INFO_RETRY_MS = 2_000;

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
  readonly language: KernelLanguage = 'py';
  readonly label: string;
  /** Always unset: no local interpreter runs the cells. */
  python = undefined;
  readonly remote: RemoteKernelInfo;
  readonly pid = undefined;
  readonly runnerPid = undefined;
  private readonly machine = new KernelStateMachine();
  private readonly logger: Logger;
  private connection!: JupyterKernel.IKernelConnection;
  private watch!: ConnectionWatch;
  private current?: RemoteCell;
  private readonly queue: RemoteCell[] = [];
  private cellSeq = 0;
  private lastExecutionCount = 0;
  private exitInfo?: KernelExit;
  /** Why the kernel ended, when it did on its own or was lost. */
  private endReason?: string;
  private stopping?: Promise<KernelExit>;
  private escalation?: NodeJS.Timeout;
  /** Set while a kernel someone else restarted comes back: a request sent meanwhile would be lost. */
  private recovering?: Promise<void>;
  private readonly sockets = new SocketPause();
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
    return this.lastExecutionCount;
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
    const { server, kernel } = this.opts;
    const { lib, settings } = await server.client((base) => this.sockets.tracked(base));
    this.connection = new lib.KernelConnection({
      model: { id: kernel.id, name: kernel.name },
      serverSettings: settings,
      handleComms: false,
    });
    // The library reconnects after a restart from a promise nobody awaits: once the connection is
    // disposed its rejection would be unhandled (and end the process). Failures are seen anyway,
    // as connection states.
    const reconnect = this.connection.reconnect.bind(this.connection);
    this.connection.reconnect = () =>
      reconnect().catch((err: Error) => this.logger.trace(`${this.executable}: ${err.message}`));
    this.watch = new ConnectionWatch(this.connection, {
      display: server.display,
      reconnectMs: this.opts.reconnectMs,
      logger: this.logger,
      onRestarted: (reason, oldSession) => this.onRestarted(reason, oldSession),
      onLost: (ename, reason) => this.die(ename, reason),
      background: (msg) => this.onBackgroundMessage(msg),
    });
    const seconds = (this.opts.startTimeoutMs ?? REMOTE_START_TIMEOUT_MS) / 1000;
    // The library asks for kernel_info once, when its websocket opens; a reply lost while the
    // server connects the kernel (a loaded server) would leave the start waiting for its deadline.
    const askAgain = setInterval(() => {
      if (this.connection.connectionStatus === 'connected')
        this.connection.requestKernelInfo().catch(() => {});
    }, KERNEL_INFO_RETRY_MS);
    try {
      const dead = this.watch.deadBeforeReady();
      await withDeadline(
        Promise.race([this.connection.info, dead]),
        seconds * 1000,
        () =>
          new KernelStartError(`kernel ${kernel.id} on ${server.display} did not answer within ${seconds} s`),
      ).finally(() => clearInterval(askAgain));
      if (this.opts.restart) await this.restartThroughServer();
      const info = await this.connection.info;
      this.remote.languageInfo = info.language_info as RemoteKernelInfo['languageInfo'];
      this.watch.ready();
      this.machine.fire('ready');
    } catch (err) {
      this.watch.close();
      this.connection.dispose();
      this.machine.fire('exited');
      throw err instanceof KernelStartError ? err : new KernelStartError((err as Error).message);
    }
  }

  /** Runs `code` as a cell. Never rejects: errors, cancellation and a lost kernel are outcomes. */
  execute(code: string, options: ExecuteOptions = {}): Promise<CellOutcome> {
    return new Promise<CellOutcome>((resolve) => {
      const id = `${this.name}-c${++this.cellSeq}`;
      if (this.state === 'dead' || this.state === 'stopping') {
        const why = this.endReason ? `: ${this.endReason}` : '';
        resolve(
          deadOutcome(
            id,
            this.lastExecutionCount,
            `The ${this.label} kernel is not running${why}`,
            undefined,
          ),
        );
        return;
      }
      if (options.signal?.aborted) {
        resolve(cancelledOutcome(id, this.lastExecutionCount));
        return;
      }
      const cell = new RemoteCell(id, code, options, resolve);
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
    if (this.current || this.recovering || this.state !== 'idle') return;
    const cell = this.queue.shift();
    if (!cell) return;
    this.current = cell;
    this.machine.fire('run');
    const { options } = cell;
    const future = this.connection.requestExecute({
      code: cell.code,
      allow_stdin: options.allowStdin === true,
      silent: options.silent === true,
      store_history: options.storeHistory ?? options.silent !== true,
      stop_on_error: false,
    });
    cell.msgId = future.msg.header.msg_id;
    cell.dispose = () => future.dispose();
    future.onIOPub = (msg) => {
      if (this.current === cell && cell.iopub(msg) && cell.interruptPending) this.sendInterrupt();
    };
    future.onStdin = (msg) => {
      if (this.current === cell && msg.header.msg_type === 'input_request') cell.inputRequest(msg);
    };
    future.done.then(
      (reply) =>
        this.endCell(cell, () => cell.replied(reply.content as ExecuteReply, this.lastExecutionCount)),
      // The library dropped the request: a restart or a lost connection, which end the cell themselves.
      () => {},
    );
  }

  /** Ends the running `cell` with the outcome `make` gives, and starts the next. */
  private endCell(cell: RemoteCell, make: () => CellOutcome) {
    if (cell.settled || this.current !== cell) return;
    const outcome = make();
    this.lastExecutionCount = outcome.executionCount;
    clearTimeout(this.escalation);
    this.current = undefined;
    cell.settle(outcome);
    this.machine.fire('done');
    this.pump();
  }

  private abortCell(cell: RemoteCell) {
    const queued = this.queue.indexOf(cell);
    if (queued !== -1) {
      this.queue.splice(queued, 1);
      cell.settle(cancelledOutcome(cell.id, this.lastExecutionCount));
    } else if (this.current === cell) {
      this.interrupt();
    }
  }

  /**
   * Interrupts the running cell through the server. Unanswered within the escalation window, the
   * kernel is restarted through the server and the cell ends saying its state was lost.
   */
  interrupt(): boolean {
    if (this.state === 'interrupting') return true;
    const cell = this.current;
    if (this.state !== 'busy' || !cell) return false;
    this.machine.fire('interrupt');
    cell.interrupted = true;
    // Before it starts, the cell may wait behind another client's work, which is not ours to stop.
    if (cell.started) this.sendInterrupt();
    else cell.interruptPending = true;
    const ms = this.opts.interruptEscalationMs ?? INTERRUPT_ESCALATION_MS;
    this.escalation = setTimeout(() => void this.escalate(cell, ms), ms);
    return true;
  }

  private sendInterrupt() {
    const cell = this.current;
    if (cell) cell.interruptPending = false;
    this.connection.interrupt().catch((err: Error) => {
      this.logger.warn(`${this.executable}: the interrupt request failed: ${err.message}`);
    });
  }

  private async escalate(cell: RemoteCell, ms: number) {
    if (this.current !== cell || cell.settled) return;
    cell.escalated = true;
    try {
      await this.restartThroughServer();
    } catch (err) {
      this.die(
        'KernelDied',
        `The kernel did not respond to the interrupt and could not be restarted: ${(err as Error).message}`,
      );
      return;
    }
    const message = `The kernel did not respond to the interrupt within ${ms / 1000} s and was restarted through the Jupyter server: its state was lost`;
    this.endCell(cell, () => cell.cutShort('KernelRestarted', message, 0, { killed: true }));
  }

  /** A restart we asked for: what the library and the server say about it is not news. */
  private async restartThroughServer(): Promise<void> {
    this.watch.restarting = true;
    try {
      await withDeadline(
        this.connection.restart(),
        RESTART_TIMEOUT_MS,
        () => new Error(`the kernel did not come back within ${RESTART_TIMEOUT_MS / 1000} s`),
      );
      // The restarted kernel's first answer: everything the old one sent is behind us.
      await withDeadline(
        this.connection.requestKernelInfo(),
        REQUEST_TIMEOUT_MS,
        () => new Error('no kernel_info'),
      );
      this.lastExecutionCount = 0;
    } finally {
      this.watch.restarting = false;
    }
  }

  /**
   * The server restarted the kernel (it died, or someone restarted it): its state is gone. The
   * next cell waits until the restarted kernel answers (`oldSession`: the old kernel's session,
   * whose answers do not count).
   */
  private onRestarted(reason: string, oldSession?: string) {
    this.lastExecutionCount = 0;
    this.recovering ??= this.awaitRestarted(oldSession).finally(() => {
      this.recovering = undefined;
      this.pump();
    });
    const cell = this.current;
    if (cell && !cell.escalated) {
      this.endCell(cell, () =>
        cell.cutShort('KernelRestarted', `${reason} while this cell was running: its state was lost`, 0),
      );
    } else if (!cell) {
      this.emitBackground({ type: 'stderr', id: null, data: `[${reason}: its state was lost]\n` });
    }
  }

  /** Asks for kernel_info until the restarted kernel answers; one that never does is lost. */
  private async awaitRestarted(oldSession?: string): Promise<void> {
    const until = Date.now() + RESTART_TIMEOUT_MS;
    while (Date.now() < until && this.state !== 'dead' && this.state !== 'stopping') {
      const reply = await withDeadline(
        this.connection.requestKernelInfo(),
        1_000,
        () => new Error('no answer'),
      ).catch(() => undefined);
      if (reply && reply.header.session !== oldSession) return;
      // The old kernel answered, or no one could be asked yet: ask again shortly.
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    this.die('KernelDied', `The kernel did not come back after it was restarted on ${this.remote.server}`);
  }

  /** The kernel is gone (dead on the server, shut down by someone, or out of reach). */
  private die(ename: string, reason: string) {
    if (this.state === 'dead' || this.state === 'stopping') return;
    this.endReason = reason;
    clearTimeout(this.escalation);
    const cell = this.current;
    this.current = undefined;
    cell?.settle(cell.cutShort(ename, reason, this.lastExecutionCount));
    for (const queued of this.queue.splice(0))
      queued.settle(
        deadOutcome(
          queued.id,
          this.lastExecutionCount,
          `The kernel ended before this cell ran: ${reason}`,
          undefined,
        ),
      );
    this.machine.fire('exited');
    this.watch.close();
    // Not from inside the library's own callbacks, which may still be using the connection.
    setImmediate(() => this.connection.dispose());
  }

  private onBackgroundMessage(msg: KernelMessage.IIOPubMessage) {
    if (this.current?.msgId === msg.parent_header?.msg_id) return;
    const meaning = readIopub(msg, null);
    if (meaning.kind === 'frame' && meaning.frame.type !== 'error') this.emitBackground(meaning.frame);
  }

  private emitBackground(frame: Frame) {
    for (const listener of this.backgroundListeners) listener(frame);
  }

  /** Stops reading the kernel's messages (the front end is behind) until resumeOutput(). Counted. */
  pauseOutput(): void {
    this.sockets.pause();
  }

  resumeOutput(): void {
    this.sockets.resume();
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
   * The kernel's variables: a Jupyter kernel has no standard request for them (the debugger's
   * `variables` needs a debug session), so this says so instead of running code in the kernel.
   */
  async variables(_limit: number, _timeoutMs?: number): Promise<Variables> {
    return {
      variables: [],
      total: 0,
      error: `listing variables is not available for a kernel on a Jupyter server (${this.remote.server}); run %whos in a cell instead`,
    };
  }

  /** Answers the running cell's input_request. */
  sendInput(value: string): void {
    const header = this.current?.inputHeader;
    if (!header) return;
    this.connection.sendInputReply(
      { status: 'ok', value },
      header as KernelMessage.IInputReplyMsg['parent_header'],
    );
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
    const running = this.current;
    this.machine.fire('stop');
    clearTimeout(this.escalation);
    this.watch.close();
    this.current = undefined;
    running?.settle({
      ...deadOutcome(
        running.id,
        this.lastExecutionCount,
        'The kernel was shut down while this cell was running',
        exit,
      ),
      cancelled: running.interrupted,
    });
    for (const cell of this.queue.splice(0))
      cell.settle(
        deadOutcome(cell.id, this.lastExecutionCount, 'The kernel exited before this cell ran', exit),
      );
    try {
      if (this.opts.owned) await this.connection.shutdown();
      else if (running) await this.connection.interrupt();
    } catch (err) {
      this.logger.warn(
        `${this.executable}: ${this.opts.owned ? 'shutting the kernel down' : 'interrupting its cell'} failed: ${(err as Error).message}`,
      );
    }
    this.connection.dispose();
    this.exitInfo = exit;
    this.machine.fire('exited');
    return exit;
  }
}
