import {
  type CellResult,
  type Completeness,
  cellCompleteness,
  localCompleteness,
  type OutputEvent,
} from '../../src/eval/index.js';
import type { CellRun, NotebookBackend } from '../../src/tui/backend.js';
import type { NotebookKernelState } from '../../src/tui/state/reducer.js';
import { cellResult } from './results.js';

/** A recorded cell: the events the executor sent and how the cell ended. */
export interface Fixture {
  events: OutputEvent[];
  result?: Partial<CellResult>;
  /** Keep the cell running until the test calls finish() (or interrupt). */
  hold?: boolean;
}

/** Replays fixtures by code, as the executor would have sent them. */
export class FakeBackend implements NotebookBackend {
  readonly cwd = '/home/user/project';
  readonly mode = 'session';
  readonly python = '/usr/bin/python3';
  readonly version = '3.11.7';
  language: 'py' | 'js' = 'py';
  nodeVersion = '20.0.0';
  private _state: NotebookKernelState = 'idle';
  private stateListeners = new Set<(state: NotebookKernelState) => void>();
  get state(): NotebookKernelState {
    return this._state;
  }
  /** Changes the kernel's state and tells the subscribers, as the engine does. */
  set state(next: NotebookKernelState) {
    if (next === this._state) return;
    this._state = next;
    for (const l of this.stateListeners) l(next);
  }
  count = 0;
  interrupts = 0;
  inputs: (string | null)[] = [];
  restarts = 0;
  ran: string[] = [];
  private release?: (result: Partial<CellResult>) => void;
  private current?: CellRun;

  constructor(private readonly fixtures: Record<string, Fixture> = {}) {}

  async start() {
    this.state = 'idle';
  }

  async runCell(run: CellRun): Promise<CellResult> {
    this.ran.push(run.code);
    this.cellNumbers.push(run.cellNumber);
    this.current = run;
    const fixture = this.fixtures[run.code] ?? { events: [{ kind: 'stdout', text: `ran ${run.code}\n` }] };
    this.state = 'busy';
    run.onEvent({ kind: 'started' });
    for (const event of fixture.events) run.onEvent(event);
    const held = fixture.hold
      ? await new Promise<Partial<CellResult>>((resolve) => (this.release = resolve))
      : {};
    this.state = 'idle';
    const result = { ...fixture.result, ...held };
    const ok = (result.status ?? 'ok') === 'ok' || result.status === 'error';
    if (ok || result.status === 'cancelled') this.count++;
    return cellResult({ executionCount: this.count, durationMs: 12, ...result });
  }

  /** Sends more events into the held cell. */
  emit(event: OutputEvent) {
    this.current?.onEvent(event);
  }

  finish(result: Partial<CellResult> = {}) {
    this.release?.(result);
    this.release = undefined;
  }

  interrupt() {
    this.interrupts++;
    this.emit({
      kind: 'error',
      ename: 'KeyboardInterrupt',
      evalue: '',
      traceback: [
        'Traceback (most recent call last):',
        '  Cell In[1], line 1, in <module>',
        'KeyboardInterrupt',
      ],
    });
    this.finish({ status: 'cancelled', exitCode: 130 });
  }

  /** The fake kernel's answers about completeness by code (else the local rules answer). */
  completeness: Record<string, Completeness> = {};
  /** Code the notebook asked about, in order. */
  asked: string[] = [];
  /** Holds is_complete answers until releaseIsComplete() (a slow kernel). */
  holdIsComplete = false;
  private heldAnswers: (() => void)[] = [];
  /** The cell numbers the notebook sent with each run, in order. */
  cellNumbers: (number | undefined)[] = [];

  async isComplete(text: string): Promise<Completeness> {
    return cellCompleteness(text, this.language, async (code, language) => {
      this.asked.push(code);
      if (this.holdIsComplete) await new Promise<void>((resolve) => this.heldAnswers.push(resolve));
      return this.completeness[code] ?? localCompleteness(code, language);
    });
  }

  releaseIsComplete() {
    this.holdIsComplete = false;
    for (const release of this.heldAnswers.splice(0)) release();
  }

  /** Names the fake kernel completes from. */
  names = ['print', 'prod', 'value_one', 'value_two'];

  async complete(code: string, cursor: number) {
    // A kernel that runs a cell does not answer (the engine's complete() gives nothing then).
    if (this.state === 'busy') return { matches: [], start: cursor, end: cursor };
    const token = /[\w.]*$/.exec(code.slice(0, cursor))?.[0] ?? '';
    return {
      matches: this.names.filter((n) => n.startsWith(token)),
      start: cursor - token.length,
      end: cursor,
    };
  }

  private backgroundListeners = new Set<(stream: 'stdout' | 'stderr', text: string) => void>();

  onBackground(listener: (stream: 'stdout' | 'stderr', text: string) => void) {
    this.backgroundListeners.add(listener);
    return () => {
      this.backgroundListeners.delete(listener);
    };
  }

  /** Output from a thread of an earlier cell, between cells. */
  background(text: string, stream: 'stdout' | 'stderr' = 'stdout') {
    for (const l of this.backgroundListeners) l(stream, text);
  }

  sendInput(value: string | null) {
    this.inputs.push(value);
  }

  async restart() {
    this.restarts++;
    this.count = 0;
  }

  onKernelState(listener: (state: NotebookKernelState) => void) {
    listener(this._state);
    this.stateListeners.add(listener);
    return () => {
      this.stateListeners.delete(listener);
    };
  }

  kernelState() {
    return this.state;
  }

  async dispose() {}
}
