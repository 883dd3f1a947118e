/**
 * Interrupting a remote kernel's running cell: through the server's interrupt endpoint once the
 * cell has started (before that it may wait behind another client's work, which is not ours to
 * stop). Unanswered within the escalation window, the kernel is restarted through the server and
 * the cell ends saying its state was lost.
 */
import type { RemoteCell } from './remoteCell.js';
import type { RemoteConnection } from './remoteConnection.js';
import type { RemoteCellQueue } from './remoteQueue.js';

/** What an interrupt tells its kernel. */
export interface InterruptHandlers {
  /** The kernel is lost: it could not be restarted. */
  die(ename: string, reason: string): void;
  warn(message: string): void;
}

export class RemoteInterrupts {
  private escalation?: NodeJS.Timeout;

  constructor(
    private readonly link: RemoteConnection,
    private readonly cells: RemoteCellQueue,
    private readonly on: InterruptHandlers,
  ) {}

  /** Interrupts `cell`, the running one; unanswered in `escalationMs`, the kernel is restarted. */
  start(cell: RemoteCell, escalationMs: number): void {
    cell.interrupted = true;
    if (cell.started) this.send();
    else cell.interruptPending = true;
    this.escalation = setTimeout(() => void this.escalate(cell, escalationMs), escalationMs);
  }

  /** The interrupt request, now (a pending one is sent). */
  send(): void {
    const cell = this.cells.current;
    if (cell) cell.interruptPending = false;
    this.link.connection.interrupt().catch((err: Error) => {
      this.on.warn(`the interrupt request failed: ${err.message}`);
    });
  }

  /** The interrupt is over: the cell ended, or the kernel did. */
  clear(): void {
    clearTimeout(this.escalation);
  }

  private async escalate(cell: RemoteCell, ms: number) {
    if (this.cells.current !== cell || cell.settled) return;
    cell.escalated = true;
    try {
      await this.link.restart();
    } catch (err) {
      this.on.die(
        'KernelDied',
        `The kernel did not respond to the interrupt and could not be restarted: ${(err as Error).message}`,
      );
      return;
    }
    const message = `The kernel did not respond to the interrupt within ${ms / 1000} s and was restarted through the Jupyter server: its state was lost`;
    this.cells.end(cell, () => cell.cutShort('KernelRestarted', message, 0, { killed: true }));
  }
}
