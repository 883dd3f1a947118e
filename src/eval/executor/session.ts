/**
 * A session: one owner of the kernels of a key. Its runs queue on the key (a promise chain), so
 * the cells of two calls never interleave; it interrupts, restarts and completes.
 */

import { type FSWatcher, watch } from 'node:fs';
import { localCompleteness } from '../completeness.js';
import type { KernelHandle as Kernel } from '../kernel/handle.js';
import type { Completeness, Completion } from '../kernel/types.js';
import type { Language } from '../language.js';
import type { ResolvedPython } from '../launch/python.js';
import type { Frame } from '../protocol/index.js';
import type { KernelMode } from '../settings.js';
import type { BridgeActivity } from './bridgeActivity.js';
import { type CellRunHost, runCell } from './cellRun.js';
import type { KernelSet, KernelStateListener } from './kernelSet.js';
import { type CellRequest, type CellResult, skippedResult } from './results.js';
import { ExecutorError, type RunOptions } from './types.js';

/** What a session needs of its executor. */
export interface SessionHost {
  /** The default cell timeout (the eval.timeout setting). */
  readonly defaultTimeout: number;
  /** Aborted by interruptAll() and dispose(); a new one after each interruptAll(). */
  readonly sessionSignal: AbortSignal;
  /** The host's count of bridge calls in flight, by cell. */
  readonly bridgeActivity: BridgeActivity;
  /** Where the cells' artifacts go (the executor's scope folder); unset: the folder itself. */
  readonly artifactDir?: string;
  kernelFor(set: KernelSet, language: Language, notices: string[]): Promise<Kernel>;
  release(set: KernelSet): Promise<void>;
  /** Resolves the interpreter again and notes it when it is not the session's (registry.ts). */
  noteOtherInterpreter?(session: Session): Promise<void>;
}

/** How long Enter waits for the kernel's answer (then the local rules decide). */
const IS_COMPLETE_TIMEOUT_MS = 1_000;

export class Session {
  private released = false;
  /** Watches the working directory for a `.venv` or `venv` made while the session lives. */
  private venvWatch?: FSWatcher;
  /** A `.venv`/`venv` changed since the interpreter was last compared: the next run compares. */
  private venvChanged = false;
  /** Interpreters the session was told of and keeps out (registry.ts: one notice each). */
  readonly noticedInterpreters = new Set<string>();

  constructor(
    private readonly host: SessionHost,
    private readonly set: KernelSet,
    readonly mode: KernelMode,
  ) {}

  get cwd(): string {
    return this.set.cwd;
  }
  /** The session's interpreter; unset when it was opened without one (requirePython: false). */
  get python(): ResolvedPython | undefined {
    return this.set.python;
  }
  /** The session's Python kernel, if it has been started. */
  get kernel(): Kernel | undefined {
    return this.set.get('py');
  }
  /** The session's kernel of a language, if it has been started. */
  kernelOf(language: Language): Kernel | undefined {
    return this.set.get(language);
  }

  /** A notice for the next cell's result (the first cell that asks for a kernel). */
  notify(text: string): void {
    this.set.pendingNotices.push(text);
  }

  /** Starts a kernel now instead of at the first cell (a front end that shows its state). */
  async start(language: Language = 'py'): Promise<void> {
    await this.host.kernelFor(this.set, language, []);
  }

  /**
   * Output the kernels send between cells (threads of earlier cells); returns an unsubscribe.
   * While nobody listens, it is kept (bounded) for the result of the cell that ends next.
   */
  onBackground(listener: (frame: Frame) => void): () => void {
    return this.set.onBackground(listener);
  }

  /**
   * Calls `listener` whenever a kernel of this session changes state, starts or goes away
   * (`none`); returns the function that unsubscribes it.
   */
  onKernelState(listener: KernelStateListener): () => void {
    return this.set.onKernelState(listener);
  }

  /** Completions from a kernel for the name before `cursor` (none while a cell runs). */
  complete(code: string, cursor: number, language: Language = 'py'): Promise<Completion> {
    return (
      this.set.get(language)?.complete(code, cursor) ??
      Promise.resolve({ matches: [], start: cursor, end: cursor })
    );
  }

  /**
   * Whether `code` is a whole cell or needs more lines: the kernel's answer (the `is_complete`
   * request), or the local rules while it cannot answer (not started, starting, running a cell).
   */
  async isComplete(code: string, language: Language = 'py'): Promise<Completeness> {
    const kernel = this.set.get(language);
    const answer =
      kernel?.state === 'idle' ? await kernel.isComplete(code, IS_COMPLETE_TIMEOUT_MS) : undefined;
    return answer && answer.status !== 'unknown' ? answer : localCompleteness(code, language);
  }

  /** Answers the running cell's input() request; `null`: the front end's input has ended. */
  sendInput(value: string | null): void {
    for (const kernel of this.set.all()) if (kernel.state === 'busy') kernel.sendInput(value);
  }

  /** Interrupts the running cell, if any (the kernel escalates to a kill on its own). */
  interrupt(): boolean {
    let any = false;
    for (const kernel of this.set.all()) any = kernel.interrupt() || any;
    return any;
  }

  /** Restarts the kernels (or the one of `language`) now: the next cell starts a fresh one. */
  async restart(language?: Language): Promise<void> {
    await this.set.shutdown(language);
  }

  /**
   * Runs cells in order in this session's kernels. When a cell does not end ok, the later cells
   * are skipped. Runs on one key never overlap: they wait for each other.
   */
  run(cells: CellRequest[], options: RunOptions = {}): Promise<CellResult[]> {
    if (this.released) return Promise.reject(new ExecutorError('this session has been released'));
    const previous = this.set.lock;
    let unlock!: () => void;
    this.set.lock = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    this.watchVenvs();
    return previous.then(async () => {
      try {
        if (this.venvChanged) {
          this.venvChanged = false;
          await this.host.noteOtherInterpreter?.(this);
        }
        const results = await this.runCells(cells, options);
        await options.afterCells?.(results, (more, moreOptions) => this.runCells(more, moreOptions));
        return results;
      } finally {
        if (this.mode === 'per-call') await this.restart();
        unlock();
      }
    });
  }

  /**
   * A session keeps its interpreter: when a `.venv` or `venv` appears in its working directory
   * (`python -m venv .venv` in a cell), the next run resolves the interpreter again and says
   * so if another would now be chosen. A watch, not a resolve per run (a warm cell is 0.3 ms).
   */
  private watchVenvs(): void {
    if (this.venvWatch || !this.set.python || !this.host.noteOtherInterpreter) return;
    try {
      this.venvWatch = watch(this.set.cwd, { persistent: false }, (_event, name) => {
        if (name === '.venv' || name === 'venv') this.venvChanged = true;
      });
      this.venvWatch.on('error', () => this.venvWatch?.close());
    } catch {
      // no watch here (too many watches, a folder gone): the session says nothing then
    }
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    this.venvWatch?.close();
    await this.host.release(this.set);
  }

  private async runCells(cells: CellRequest[], options: RunOptions): Promise<CellResult[]> {
    const runHost = this.cellRunHost(); // interruptAll() during this run aborts it
    const results: CellResult[] = [];
    let failed = false;
    for (const [index, cell] of cells.entries()) {
      if (failed || options.signal?.aborted || runHost.sessionSignal.aborted) {
        results.push(skippedResult(index, cell));
        options.onCellDone?.(results.at(-1) as CellResult);
        continue;
      }
      const result = await runCell(runHost, index, cell, options);
      results.push(result);
      options.onCellDone?.(result);
      failed = result.status !== 'ok';
    }
    return results;
  }

  private cellRunHost(): CellRunHost {
    return {
      defaultTimeout: this.host.defaultTimeout,
      ...(this.host.artifactDir ? { artifactDir: this.host.artifactDir } : {}),
      sessionSignal: this.host.sessionSignal,
      bridgeActivity: this.host.bridgeActivity,
      takeBackground: () => this.set.takeBackground(),
      pythonMissing: this.set.pythonError !== undefined,
      kernelFor: (language, notices) => this.host.kernelFor(this.set, language, notices),
      kernelOf: (language) => this.set.get(language),
      restart: (language) => this.restart(language),
    };
  }
}
