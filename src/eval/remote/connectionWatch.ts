/**
 * What happens to a remote kernel behind the client's back: the server restarts it (it died, or
 * another client asked), shuts it down, or the websocket drops. A dropped connection is given one
 * reconnection and `reconnectMs` to come back; after that the kernel counts as lost, so a cell
 * never waits on a server that is gone.
 */
import type { Kernel as JupyterKernel, KernelMessage } from '@jupyterlab/services';
import type { Logger } from '../logger.js';

/** How long a dropped websocket may take to reconnect. */
const RECONNECT_MS = 5_000;

export interface WatchHandlers {
  /** The server as messages name it. */
  display: string;
  reconnectMs?: number;
  logger: Logger;
  /** The kernel was restarted, not by us: its state is gone, it runs on (`oldSession`: the old kernel's). */
  onRestarted(reason: string, oldSession?: string): void;
  /** The kernel is gone, or out of reach (`ename` KernelDied or ConnectionLost). */
  onLost(ename: string, reason: string): void;
  /** An iopub message this client caused outside a cell (threads of earlier cells). */
  background(msg: KernelMessage.IIOPubMessage): void;
}

export class ConnectionWatch {
  /** Set while we restart the kernel ourselves: its restart is expected. */
  restarting = false;
  private isReady = false;
  private closed = false;
  private lostTimer?: NodeJS.Timeout;
  private retried = false;
  private rejectStart?: (err: Error) => void;

  constructor(
    private readonly connection: JupyterKernel.IKernelConnection,
    private readonly on: WatchHandlers,
  ) {
    connection.statusChanged.connect(this.onStatus, this);
    connection.connectionStatusChanged.connect(this.onConnection, this);
    connection.iopubMessage.connect(this.onIopub, this);
  }

  /** Rejects if the kernel is dead before it is ready (a kernel id whose kernel died meanwhile). */
  deadBeforeReady(): Promise<never> {
    const dead = new Promise<never>((_, reject) => {
      this.rejectStart = reject;
    });
    dead.catch(() => {}); // only awaited while starting
    return dead;
  }

  /** The kernel answered: from now on what happens to it is reported, not thrown. */
  ready(): void {
    this.isReady = true;
    this.rejectStart = undefined;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.lostTimer);
    this.connection.statusChanged.disconnect(this.onStatus, this);
    this.connection.connectionStatusChanged.disconnect(this.onConnection, this);
    this.connection.iopubMessage.disconnect(this.onIopub, this);
  }

  private onStatus(_: unknown, status: JupyterKernel.Status) {
    if (this.closed) return;
    if (status === 'dead') {
      if (!this.isReady) {
        this.rejectStart?.(new Error(`the kernel on ${this.on.display} is dead`));
        return;
      }
      if (this.lostTimer) this.lose('could not reconnect');
      else this.on.onLost('KernelDied', `The kernel on the Jupyter server at ${this.on.display} is dead`);
      return;
    }
    // The server restarted a kernel that died (its restarter), and says so on iopub.
    if (status === 'autorestarting' && this.isReady && !this.restarting)
      this.on.onRestarted('The kernel died and the Jupyter server restarted it');
  }

  private onConnection(_: unknown, status: JupyterKernel.ConnectionStatus) {
    if (this.closed || !this.isReady || this.restarting) return;
    if (status === 'connected') {
      if (this.lostTimer) this.on.logger.warn(`reconnected to the Jupyter server at ${this.on.display}`);
      clearTimeout(this.lostTimer);
      this.lostTimer = undefined;
      this.retried = false;
      return;
    }
    if (!this.lostTimer) {
      const ms = this.on.reconnectMs ?? RECONNECT_MS;
      this.on.logger.warn(`lost the connection to the Jupyter server at ${this.on.display}; reconnecting`);
      this.lostTimer = setTimeout(() => this.lose(`could not reconnect within ${ms / 1000} s`), ms);
    }
    // The library gave up (or the server closed the socket): one more try of our own.
    if (status === 'disconnected') {
      if (this.retried) this.lose('could not reconnect');
      else {
        this.retried = true;
        setImmediate(() => {
          if (!this.closed) void this.connection.reconnect();
        });
      }
    }
  }

  private lose(why: string) {
    if (this.closed) return;
    this.on.onLost(
      'ConnectionLost',
      `Lost the connection to the Jupyter server at ${this.on.display} and ${why}`,
    );
  }

  private onIopub(_: unknown, msg: KernelMessage.IIOPubMessage) {
    if (this.closed || !this.isReady) return;
    // ipykernel announces a shutdown or restart on iopub; one we did not ask for is news.
    if ((msg.header.msg_type as string) === 'shutdown_reply') {
      if (this.restarting) return;
      const restart = (msg.content as { restart?: boolean }).restart === true;
      if (restart)
        this.on.onRestarted(
          'The kernel was restarted through the Jupyter server (by another client or the server)',
        );
      else
        this.on.onLost(
          'KernelDied',
          `The kernel was shut down on the Jupyter server at ${this.on.display} (by another client or the server)`,
        );
      return;
    }
    if (msg.parent_header && (msg.parent_header as { session?: string }).session === this.connection.clientId)
      this.on.background(msg);
  }
}
