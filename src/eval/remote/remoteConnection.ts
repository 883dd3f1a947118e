/**
 * A remote kernel's connection over its life: opened through the server's client library, ready
 * once the kernel answers kernel_info (asked again until it does), watched (connectionWatch.ts),
 * restarted through the server, waited for after a restart someone else made, and let go of at
 * the end (the kernel shut down when this session owns it).
 */
import type { Kernel as JupyterKernel, KernelMessage } from '@jupyterlab/services';
import { KernelStartError } from '../kernel/types.js';
import type { Logger } from '../logger.js';
import { ConnectionWatch } from './connectionWatch.js';
import { withDeadline } from './deadline.js';
import { REQUEST_TIMEOUT_MS, type RemoteServer } from './server.js';
import { SocketPause } from './socketPause.js';

/** A kernel starting on a remote machine (a pod, a YARN container) may take its time. */
const REMOTE_START_TIMEOUT_MS = 60_000;
/** How long a restart through the server may take, the kernel's start included. */
const RESTART_TIMEOUT_MS = 60_000;
/** How often a kernel that has not answered kernel_info since the websocket opened is asked again. */
const KERNEL_INFO_RETRY_MS = 2_000;

export interface ConnectionOptions {
  server: RemoteServer;
  kernel: { id: string; name: string };
  logger: Logger;
  /** What runs the cells, for messages. */
  executable: string;
  startTimeoutMs?: number;
  /** How long a dropped connection may take to come back before the kernel counts as lost. */
  reconnectMs?: number;
}

/** What the connection tells its kernel. */
export interface ConnectionEvents {
  /** The kernel was restarted, not by us: its state is gone (`oldSession`: the old kernel's). */
  onRestarted(reason: string, oldSession?: string): void;
  /** The kernel is gone, or out of reach (`ename` KernelDied or ConnectionLost). */
  onLost(ename: string, reason: string): void;
  /** An iopub message this client caused outside a cell (threads of earlier cells). */
  background(msg: KernelMessage.IIOPubMessage): void;
  /** A restart we asked for is done: the restarted kernel has answered. */
  restarted(): void;
}

export class RemoteConnection {
  /** The client library's connection (from open() on). */
  connection!: JupyterKernel.IKernelConnection;
  /** The websockets the library opens for the kernel (paused while the front end is behind). */
  readonly sockets = new SocketPause();
  private watch!: ConnectionWatch;

  constructor(
    private readonly opts: ConnectionOptions,
    private readonly events: ConnectionEvents,
  ) {}

  /**
   * Connects and waits until the kernel answers kernel_info (then restarts it through the server
   * when `restart`); `ready` gets its language_info. On failure all is closed, and the error is a
   * KernelStartError.
   */
  async open(restart: boolean, ready: (languageInfo: unknown) => void): Promise<void> {
    const { server, kernel, logger } = this.opts;
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
      reconnect().catch((err: Error) => logger.trace(`${this.opts.executable}: ${err.message}`));
    this.watch = new ConnectionWatch(this.connection, {
      display: server.display,
      reconnectMs: this.opts.reconnectMs,
      logger,
      onRestarted: (reason, oldSession) => this.events.onRestarted(reason, oldSession),
      onLost: (ename, reason) => this.events.onLost(ename, reason),
      background: (msg) => this.events.background(msg),
    });
    try {
      await this.awaitKernelInfo();
      if (restart) await this.restart();
      const info = await this.connection.info;
      this.watch.ready();
      ready(info.language_info);
    } catch (err) {
      this.watch.close();
      this.connection.dispose();
      throw err instanceof KernelStartError ? err : new KernelStartError((err as Error).message);
    }
  }

  /**
   * Resolves once the kernel answers kernel_info; rejects when it is dead first or the start's
   * deadline passes. The library asks once, when its websocket opens; a reply lost while the
   * server connects the kernel (a loaded server) would leave the start waiting for its deadline,
   * so it is asked again.
   */
  private async awaitKernelInfo(): Promise<void> {
    const { server, kernel } = this.opts;
    const seconds = (this.opts.startTimeoutMs ?? REMOTE_START_TIMEOUT_MS) / 1000;
    const askAgain = setInterval(() => {
      if (this.connection.connectionStatus === 'connected')
        this.connection.requestKernelInfo().catch(() => {});
    }, KERNEL_INFO_RETRY_MS);
    const dead = this.watch.deadBeforeReady();
    await withDeadline(
      Promise.race([this.connection.info, dead]),
      seconds * 1000,
      () =>
        new KernelStartError(`kernel ${kernel.id} on ${server.display} did not answer within ${seconds} s`),
    ).finally(() => clearInterval(askAgain));
  }

  /** A restart we ask for: what the library and the server say about it is not news. */
  async restart(): Promise<void> {
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
      this.events.restarted();
    } finally {
      this.watch.restarting = false;
    }
  }

  /**
   * Asks for kernel_info, while `waiting()`, until a restarted kernel answers (`oldSession`: the old
   * kernel's session, whose answers do not count); false when it did not within RESTART_TIMEOUT_MS.
   */
  async awaitRestarted(oldSession: string | undefined, waiting: () => boolean): Promise<boolean> {
    const until = Date.now() + RESTART_TIMEOUT_MS;
    while (Date.now() < until && waiting()) {
      const reply = await withDeadline(
        this.connection.requestKernelInfo(),
        1_000,
        () => new Error('no answer'),
      ).catch(() => undefined);
      if (reply && reply.header.session !== oldSession) return true;
      // The old kernel answered, or no one could be asked yet: ask again shortly.
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return false;
  }

  /** What happens to the kernel is no longer reported. */
  stopWatching(): void {
    this.watch.close();
  }

  /** The kernel is lost: the connection goes too. */
  drop(): void {
    this.watch.close();
    // Not from inside the library's own callbacks, which may still be using the connection.
    setImmediate(() => this.connection.dispose());
  }

  /**
   * Ends this client's use of the kernel: an `owned` one is shut down on the server, else its
   * cell is interrupted if one was `running`; then the connection goes. A failure is logged.
   * Nothing is watched from here on (the watch would reconnect the connection being disposed).
   */
  async release(owned: boolean, running: boolean): Promise<void> {
    this.watch.close();
    try {
      if (owned) await this.connection.shutdown();
      else if (running) await this.connection.interrupt();
    } catch (err) {
      this.opts.logger.warn(
        `${this.opts.executable}: ${owned ? 'shutting the kernel down' : 'interrupting its cell'} failed: ${(err as Error).message}`,
      );
    }
    this.connection.dispose();
  }
}
