/** The executor's options and the options of a run. */
import type { KernelFactory } from '../kernel/handle.js';
import type { Language } from '../language.js';
import type { PrestartedKernel } from '../launch/prestart.js';
import type { Logger } from '../logger.js';
import type { SinkLimits } from '../output/outputSink.js';
import type { BridgeHandler, ScriptInfo } from '../protocol/index.js';
import type { KernelMode, Settings } from '../settings.js';
import type { OutputEvent } from './events.js';
import type { CellRequest, CellResult } from './results.js';

export interface RunOptions {
  signal?: AbortSignal;
  /**
   * Called for every event. Returning a promise applies backpressure: the kernel's output is not
   * read (so the cell blocks on its writes) until the promise settles.
   */
  onEvent?: (cellIndex: number, event: OutputEvent) => unknown;
  /** Called as each cell ends (a skipped one too), before the next starts: a follower's per-cell status. */
  onCellDone?: (result: CellResult) => void;
  /** Let input() ask the front end (answer with Session.sendInput). */
  allowStdin?: boolean;
  /**
   * (with allowStdin) The front end's input ends (a pipe, a file): it answers null at its end, and
   * `sys.stdin.read()` reads up to there.
   */
  stdinEnds?: boolean;
  /** Output limits of each cell's sink. */
  sinkLimits?: Partial<SinkLimits>;
  /**
   * Variables set in the kernel before each cell (null unsets one): the notebook sends its width
   * as COLUMNS, which the kernel also tells pandas, as a terminal's width.
   */
  cellEnv?: Record<string, string | null>;
  /** Timeout in seconds for cells that set none (default: the eval.timeout setting); null for none. */
  defaultTimeout?: number | null;
  /**
   * The cells are the host's own questions (what a call left running): they take no execution
   * count, no history and no `_`, and only what they print is their answer.
   */
  silent?: boolean;
  /**
   * Keep each cell's output text in the result (default true). Front ends that print as they go
   * pass false: nothing is kept and no artifact file is written.
   */
  collectOutput?: boolean;
  /**
   * Run a cell again in a new kernel when the kernel died under it on its own (default true, as
   * the eval tool does). A notebook passes false: re-running user code repeats its side effects.
   */
  retryOnDeath?: boolean;
  /**
   * Called once the cells ran, while the run still holds the session's kernels (before a per-call
   * session ends them): `runMore` runs further cells in them (a check of what was left running).
   */
  afterCells?: (
    results: CellResult[],
    runMore: (cells: CellRequest[], options: RunOptions) => Promise<CellResult[]>,
  ) => Promise<void>;
}

export interface SessionOptions {
  id?: string;
  cwd?: string;
  /** Overrides the settings' kernel mode for this session. */
  mode?: KernelMode;
  /**
   * The executor itself owns the session and hands the same one to every caller with this key,
   * so state persists across calls until dispose() (the eval tool's calls work this way). Callers
   * do not release a retained session.
   */
  retain?: boolean;
  /**
   * Fail when no Python can be found (default true). False lets a session without Python run js
   * cells; its py cells then fail with the availability error.
   */
  requirePython?: boolean;
  /**
   * The script the cells come from (`omp-eval run`): the session's kernels name it in `sys.argv` /
   * `process.argv`, and Python's in `__file__` and `sys.path[0]`, as `python script.py` does.
   */
  script?: ScriptInfo;
}

export interface ExecutorOptions {
  settings?: Partial<Settings>;
  hostEnv?: NodeJS.ProcessEnv;
  /** Extra environment entries set in every kernel at init. */
  kernelEnv?: Record<string, string>;
  /** Answers agent() and completion() (default: the configured commands). */
  bridge?: BridgeHandler;
  /** The code every kernel runs once at start (default: the bundled prelude): plain Python, no IPython syntax. */
  prelude?: string;
  /** Where the engine's traces and warnings go (default: nowhere). */
  logger?: Logger;
  /** Makes the kernels of a language in place of local processes (a Jupyter server's kernels). */
  kernelFactories?: Partial<Record<Language, KernelFactory>>;
  /**
   * A Python kernel's process spawned before the engine loaded (`prestartPython`): the first
   * Python kernel that fits it uses it, and dispose() stops it if none did.
   */
  prestarted?: PrestartedKernel;
  /**
   * The name of this executor's folder of artifacts (artifact.ts); by default one of its own.
   * Executors that name the same scope see each other's artifacts.
   */
  artifactScope?: string;
  /** Kernel tuning, for tests. */
  interruptEscalationMs?: number;
  shutdownGraceMs?: number;
}

export class ExecutorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExecutorError';
  }
}

/** The reason of a disposed executor's abort: cells it stopped say why omp-eval was closing. */
export class ExecutorClosedError extends ExecutorError {
  constructor(readonly why: string) {
    super(`the executor was disposed (${why})`);
    this.name = 'ExecutorClosedError';
  }
}
