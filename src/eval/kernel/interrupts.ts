/**
 * Interrupting a local kernel's running cell: SIGINT once the cell has started (before that the
 * runner would ignore it, so it waits for `started`), escalated to stopping the kernel when the
 * cell has not ended within the escalation window.
 */

import type { Language } from '../language.js';
import type { KernelChannel } from './channel.js';
import type { Cell } from './outcomes.js';

/** How often a js cell that has not ended gets SIGINT again while it is being interrupted. */
const JS_REINTERRUPT_MS = 1_000;

/** What an interrupt needs of its kernel. */
export interface InterruptTarget {
  readonly language: Language;
  channel(): KernelChannel | undefined;
  /** The running cell. */
  running(): Cell | undefined;
  /** The cell did not end within the escalation window: the kernel is stopped. */
  escalate(): void;
}

export class CellInterrupts {
  private escalation?: NodeJS.Timeout;
  private reinterrupt?: NodeJS.Timeout;

  constructor(private readonly target: InterruptTarget) {}

  /** Interrupts `cell`, the running one; the kernel is stopped if it has not ended in `escalationMs`. */
  start(cell: Cell, escalationMs: number): void {
    this.target.channel()?.cancelBridgeCalls(cell.request.id);
    if (cell.started) this.signal();
    else cell.interruptPending = true;
    this.escalation = setTimeout(() => this.target.escalate(), escalationMs);
    // Node can swallow a SIGINT that lands as a cell's synchronous part ends (vm's breakOnSigint
    // watchdog has it, and no code is left to break): a js cell gets it again until it ends.
    if (this.target.language === 'js')
      this.reinterrupt = setInterval(
        () => this.target.running()?.started && this.signal(),
        JS_REINTERRUPT_MS,
      );
  }

  /**
   * SIGINT for the running cell: to the runner only for Python (background processes of earlier
   * cells go on; the runner forwards it to shell commands). A js runner blocked in execSync()
   * cannot act on it, so there its child processes get it too.
   */
  signal(): void {
    const channel = this.target.channel();
    channel?.signalRunner('SIGINT');
    if (this.target.language === 'js') channel?.signalDescendants('SIGINT');
  }

  /** The interrupt is over: the cell ended, or the kernel did. */
  clear(): void {
    clearTimeout(this.escalation);
    clearInterval(this.reinterrupt);
    this.escalation = undefined;
  }
}
