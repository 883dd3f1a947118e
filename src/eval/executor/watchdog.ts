/**
 * The cell timeout: a wall-clock budget on the cell's own work. It is held while the cell's host
 * bridge calls are in flight (bridgeActivity.ts); each release starts a fresh window. Its length in
 * seconds is the cell's (its default and bounds: ../cellTimeout.ts).
 */
export class CellTimeoutError extends Error {
  constructor(readonly seconds: number) {
    super(`eval cell timed out after ${seconds}s`);
    this.name = 'CellTimeoutError';
  }
}

export class Watchdog {
  private readonly controller = new AbortController();
  private timer?: NodeJS.Timeout;
  private pauses = 0;
  private held = false;
  private started = false;

  /** `seconds` undefined: a watchdog that never fires (pause/resume still count). */
  constructor(readonly seconds: number | undefined) {}

  /** Aborted (with a CellTimeoutError reason) when the budget runs out. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get paused(): boolean {
    return this.pauses > 0;
  }

  start(): void {
    if (this.started || this.signal.aborted) return;
    this.started = true;
    this.arm();
  }

  pause(): void {
    this.pauses++;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  resume(): void {
    if (this.pauses === 0) return;
    this.pauses--;
    if (this.pauses === 0 && this.started) this.arm();
  }

  /** Held (paused) or not, whatever it was before: for one owner that knows the whole state. */
  hold(held: boolean): void {
    if (held && !this.held) this.pause();
    else if (!held && this.held) this.resume();
    this.held = held;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.started = false;
  }

  private arm() {
    clearTimeout(this.timer);
    const seconds = this.seconds;
    if (this.signal.aborted || seconds === undefined) return;
    this.timer = setTimeout(() => this.controller.abort(new CellTimeoutError(seconds)), seconds * 1000);
  }
}
