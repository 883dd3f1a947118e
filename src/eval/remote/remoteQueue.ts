/**
 * A remote kernel's cells: queued in order and sent one at a time while the kernel is idle (and
 * not coming back from a restart), cancelled by their abort signal, ended by their execute_reply
 * or by what cut them short, and all at once when the kernel goes.
 */
import { cancelledOutcome, deadOutcome } from '../kernel/outcomes.js';
import type { KernelStateMachine } from '../kernel/state.js';
import type { CellOutcome, ExecuteOptions, KernelExit } from '../kernel/types.js';
import { RemoteCell } from './remoteCell.js';

/** What the queue needs of its kernel. */
export interface RemoteQueueHost {
  /** Sends the cell's execute_request. */
  send(cell: RemoteCell): void;
  /** Interrupts the running cell (its abort signal fired). */
  interrupt(): void;
  /** The running cell ended: its interrupt, if one was under way, is over. */
  ended(): void;
}

export class RemoteCellQueue {
  /** The cell whose execute_request the kernel has. */
  current?: RemoteCell;
  /** The execution count of the last cell that ended (0 after a restart). */
  executionCount = 0;
  private readonly waiting: RemoteCell[] = [];
  /** Set while a kernel someone else restarted comes back: a request sent meanwhile would be lost. */
  private held?: Promise<void>;

  constructor(
    private readonly machine: KernelStateMachine,
    private readonly host: RemoteQueueHost,
  ) {}

  /**
   * Queues `code` as the cell `id`; resolves with its outcome, never rejects. `unavailable`: why the
   * kernel takes no cells (it ended).
   */
  enqueue(id: string, code: string, options: ExecuteOptions, unavailable?: string): Promise<CellOutcome> {
    return new Promise<CellOutcome>((resolve) => {
      if (unavailable !== undefined) {
        resolve(deadOutcome(id, this.executionCount, unavailable, undefined));
        return;
      }
      if (options.signal?.aborted) {
        resolve(cancelledOutcome(id, this.executionCount));
        return;
      }
      const cell = new RemoteCell(id, code, options, resolve);
      if (options.signal) {
        cell.onAbort = () => this.abort(cell);
        options.signal.addEventListener('abort', cell.onAbort, { once: true });
      }
      this.waiting.push(cell);
      this.pump();
    });
  }

  /** Sends the next queued cell when the kernel can take it. */
  pump(): void {
    if (this.current || this.held || this.machine.state !== 'idle') return;
    const cell = this.waiting.shift();
    if (!cell) return;
    this.current = cell;
    this.machine.fire('run');
    this.host.send(cell);
  }

  /** No cell goes until `back` (started now unless one is already awaited) settles. */
  holdUntil(back: () => Promise<void>): void {
    this.held ??= back().finally(() => {
      this.held = undefined;
      this.pump();
    });
  }

  /** Ends the running `cell` with the outcome `make` gives, and starts the next. */
  end(cell: RemoteCell, make: () => CellOutcome): void {
    if (cell.settled || this.current !== cell) return;
    const outcome = make();
    this.executionCount = outcome.executionCount;
    this.host.ended();
    this.current = undefined;
    cell.settle(outcome);
    this.machine.fire('done');
    this.pump();
  }

  /** The kernel was lost (`ename` KernelDied or ConnectionLost): every cell ends saying why. */
  lost(ename: string, reason: string): void {
    const count = this.executionCount;
    this.endAll(
      (cell) => cell.cutShort(ename, reason, count),
      (cell) => deadOutcome(cell.id, count, `The kernel ended before this cell ran: ${reason}`, undefined),
    );
  }

  /** The kernel was shut down (`exit`): every cell ends, the running one cancelled if it was interrupted. */
  shutDown(exit: KernelExit): void {
    const count = this.executionCount;
    this.endAll(
      (cell) => ({
        ...deadOutcome(cell.id, count, 'The kernel was shut down while this cell was running', exit),
        cancelled: cell.interrupted,
      }),
      (cell) => deadOutcome(cell.id, count, 'The kernel exited before this cell ran', exit),
    );
  }

  private endAll(running: (cell: RemoteCell) => CellOutcome, queued: (cell: RemoteCell) => CellOutcome) {
    const cell = this.current;
    this.current = undefined;
    cell?.settle(running(cell));
    for (const waiting of this.waiting.splice(0)) waiting.settle(queued(waiting));
  }

  private abort(cell: RemoteCell) {
    const queued = this.waiting.indexOf(cell);
    if (queued !== -1) {
      this.waiting.splice(queued, 1);
      cell.settle(cancelledOutcome(cell.id, this.executionCount));
    } else if (this.current === cell) {
      this.host.interrupt();
    }
  }
}
