/**
 * A local kernel's cells: queued in order and sent one at a time when the kernel can take one
 * (idle, or still starting: the init request is a cell too), cancelled by their abort signal,
 * given the running cell's frames, and ended by their `done` frame or, all at once, by the
 * kernel's exit.
 */
import type { DoneFrame, ExecuteRequest, Frame } from '../protocol/index.js';
import { type Cell, cancelledOutcome, cellErrorOf, deadOutcome, exitOutcome } from './outcomes.js';
import type { KernelStateMachine } from './state.js';
import type { CellOutcome, ExecuteOptions, KernelExit } from './types.js';

/** What the queue needs of its kernel. */
export interface CellQueueHost {
  /** "Python" or "JavaScript", for messages. */
  readonly label: string;
  /** How the process ended, once it has. */
  exit(): KernelExit | undefined;
  /** Sends a cell's request to the runner. */
  write(request: ExecuteRequest): void;
  /** Interrupts the running cell (its abort signal fired). */
  interrupt(): void;
  /** Sends the SIGINT of an interrupt that came before the running cell started. */
  signalInterrupt(): void;
  /** The running cell ended: its interrupt, if one was under way, is over. */
  ended(): void;
}

export class CellQueue {
  /** The cell whose request the runner has. */
  current?: Cell;
  /** The execution count the last `done` frame gave. */
  executionCount = 0;
  private readonly waiting: Cell[] = [];

  constructor(
    private readonly machine: KernelStateMachine,
    private readonly host: CellQueueHost,
  ) {}

  /** Queues `request` as a cell; resolves with its outcome, never rejects. */
  enqueue(request: ExecuteRequest, options: ExecuteOptions): Promise<CellOutcome> {
    return new Promise<CellOutcome>((resolve) => {
      const cell: Cell = { request, options, resolve };
      if (this.machine.state === 'dead') {
        resolve(
          deadOutcome(
            request.id,
            this.executionCount,
            `The ${this.host.label} kernel is not running`,
            this.host.exit(),
          ),
        );
        return;
      }
      if (options.signal?.aborted) {
        resolve(cancelledOutcome(request.id, this.executionCount));
        return;
      }
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
    if (this.current || (this.machine.state !== 'idle' && this.machine.state !== 'starting')) return;
    const cell = this.waiting.shift();
    if (!cell) return;
    this.current = cell;
    // (A kernel still starting runs its init first: that wait is the start-up's, not the cell's.)
    const idle = this.machine.state === 'idle';
    this.machine.fire('run');
    this.host.write(cell.request);
    if (idle) cell.options.onSent?.();
  }

  /** Gives a frame of the running cell to it (`done` ends it); false when it is no frame of it. */
  deliver(frame: Frame): boolean {
    const cell = this.current;
    if (!cell || frame.id !== cell.request.id) return false;
    if (frame.type === 'started') {
      cell.started = true;
      if (cell.interruptPending) this.host.signalInterrupt();
    }
    if (frame.type === 'error' && !cell.error) cell.error = cellErrorOf(frame);
    cell.options.onFrame?.(frame);
    if (frame.type === 'done') this.done(cell, frame);
    return true;
  }

  /** The running cell's `done` frame: the cell ends, and the next one goes. */
  private done(cell: Cell, frame: DoneFrame): void {
    this.executionCount = frame.executionCount;
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

  /**
   * The process exited (`protocolError`: why the host stopped it, if its frames broke): the
   * running cell and every queued one end with `exit`.
   */
  endAll(exit: KernelExit, protocolError: string | undefined): void {
    const context = {
      label: this.host.label,
      executionCount: this.executionCount,
      protocolError,
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
    for (const cell of this.waiting.splice(0))
      this.finish(cell, exitOutcome({ id: cell.request.id }, false, exit, context));
  }

  private abort(cell: Cell) {
    const queued = this.waiting.indexOf(cell);
    if (queued !== -1) {
      this.waiting.splice(queued, 1);
      this.finish(cell, cancelledOutcome(cell.request.id, this.executionCount));
    } else if (this.current === cell) {
      this.host.interrupt();
    }
  }

  private finish(cell: Cell, outcome: CellOutcome) {
    if (this.current === cell) {
      this.current = undefined;
      this.host.ended();
    }
    if (cell.onAbort) cell.options.signal?.removeEventListener('abort', cell.onAbort);
    cell.resolve(outcome);
  }
}
