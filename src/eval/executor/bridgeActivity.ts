/**
 * Which cells have bridge calls (agent(), completion()) in flight, counted by the host as it
 * answers them: a cell's timeout is paused only while one of its own calls is in flight. Nothing
 * a cell displays can pause it, and a call from a thread of an earlier cell (which the kernel
 * attributes to no cell, or to that earlier cell) does not pause a later cell's.
 */
import type { BridgeHandler } from '../protocol/index.js';
import type { Watchdog } from './watchdog.js';

export class BridgeActivity {
  /** Host-side calls in flight, by cell id. */
  private readonly inFlight = new Map<string, number>();
  private readonly watches = new Map<string, CellBridgeWatch>();

  /** `handler`, counting each call of a cell while it runs. */
  wrap(handler: BridgeHandler): BridgeHandler {
    return async (request, signal) => {
      const cell = request.cell;
      if (typeof cell !== 'string') return handler(request, signal);
      this.change(cell, 1);
      try {
        return await handler(request, signal);
      } finally {
        this.change(cell, -1);
      }
    };
  }

  /** A watch for one attempt at a cell: it learns the cell's id from its `started` frame. */
  watch(watchdog: Watchdog): CellBridgeWatch {
    return new CellBridgeWatch(watchdog, this);
  }

  /** @internal */
  attach(cell: string, watch: CellBridgeWatch): number {
    this.watches.set(cell, watch);
    return this.inFlight.get(cell) ?? 0;
  }

  /** @internal */
  detach(cell: string, watch: CellBridgeWatch): void {
    if (this.watches.get(cell) === watch) this.watches.delete(cell);
  }

  private change(cell: string, delta: 1 | -1) {
    const count = (this.inFlight.get(cell) ?? 0) + delta;
    if (count > 0) this.inFlight.set(cell, count);
    else this.inFlight.delete(cell);
    const watch = this.watches.get(cell);
    if (delta > 0) watch?.callBegan();
    else watch?.callEnded();
  }
}

/**
 * One attempt's view: calls begun by the host, ended by the host, and ended on the kernel's side
 * (a call the kernel gave up on while the host's command runs on). A call is in flight until both
 * sides are done with it; the watchdog is held while any is.
 */
export class CellBridgeWatch {
  private cell?: string;
  private begun = 0;
  private ended = 0;
  private kernelDone = 0;

  constructor(
    private readonly watchdog: Watchdog,
    private readonly activity: BridgeActivity,
  ) {}

  /** The cell's `started` frame: its watchdog starts, its calls are counted from now. */
  started(cell: string): void {
    this.watchdog.start();
    if (this.cell !== undefined) return;
    this.cell = cell;
    this.begun = this.activity.attach(cell, this);
    this.update();
  }

  callBegan(): void {
    this.begun++;
    this.update();
  }

  callEnded(): void {
    this.ended++;
    this.update();
  }

  /** The kernel's prelude says one of its calls ended (answered, failed or given up on). */
  kernelEnded(): void {
    this.kernelDone++;
    this.update();
  }

  dispose(): void {
    if (this.cell !== undefined) this.activity.detach(this.cell, this);
  }

  private update() {
    this.watchdog.hold(this.begun - Math.max(this.ended, this.kernelDone) > 0);
  }
}
