/** The kernel client's public types. */

import type { Language } from '../language.js';
import type { ResolvedPython } from '../launch/python.js';
import type { KernelProcess } from '../launch/spawn.js';
import type { Logger } from '../logger.js';
import type {
  BridgeHandler,
  CompletenessStatus,
  Frame,
  ScriptInfo,
  VariableInfo,
} from '../protocol/index.js';
import type { SandboxSettings } from '../sandbox/settings.js';

/** The name a kernel of each language goes by in messages. */
export const LANGUAGE_LABEL: Record<Language, string> = { py: 'Python', js: 'JavaScript' };

export const INTERRUPT_ESCALATION_MS = 5_000;
export const SHUTDOWN_GRACE_MS = 1_000;
export const START_TIMEOUT_MS = 20_000;
/**
 * How long an idle kernel may take to answer a completion request: jedi's first completion on a
 * pandas object takes seconds, which the notebook waits for, saying so; a __dir__ that hangs is
 * interrupted after it. ($OMP_EVAL_COMPLETE_TIMEOUT_MS sets another: tests on a loaded machine.)
 */
export const COMPLETE_TIMEOUT_MS = Number(process.env.OMP_EVAL_COMPLETE_TIMEOUT_MS) || 10_000;
/** How long listing the user's names may take (a __str__ that hangs) before it is interrupted. */
export const VARIABLES_TIMEOUT_MS = 10_000;
/** How long one name's summary may take before the kernel lists it as skipped. */
export const VARIABLE_NAME_TIMEOUT_MS = 1_000;

export interface KernelOptions {
  /** The kernel's language (default py). */
  language?: Language;
  /** The script its cells come from (`omp-eval run`), set in the kernel at init. */
  script?: ScriptInfo;
  /** Working directory of the kernel (validated before anything starts). */
  cwd?: string;
  /** An explicit interpreter: skips discovery (py). */
  python?: string;
  /** An interpreter resolved earlier (skips resolution and probing). */
  resolved?: ResolvedPython;
  /** The host environment to filter (default: process.env). */
  hostEnv?: NodeJS.ProcessEnv;
  /** Entries set in the kernel's os.environ at init, after filtering. */
  env?: Record<string, string>;
  /** Host variables passed through although the filter would drop them (--pass-env). */
  passEnv?: readonly string[];
  /**
   * The spec's environment filter (default true): false gives the kernel the whole host
   * environment (a person's faces: envFilter.ts), credentials still out when it is sandboxed.
   */
  envFilter?: boolean;
  startTimeoutMs?: number;
  /** Aborted while the kernel starts: it is stopped, and its start fails (the host is closing). */
  signal?: AbortSignal;
  interruptEscalationMs?: number;
  shutdownGraceMs?: number;
  /** How long an ordering barrier waits for its other parts (a lost marker; default 1 s). */
  rawSyncMs?: number;
  /** Trace every frame in both directions to the logger (default: PI_PYTHON_IPC_TRACE=1). */
  trace?: boolean;
  /** Where traces and warnings go (default: nowhere). */
  logger?: Logger;
  /** The prelude run once at start; false for none. */
  prelude?: string | false;
  /** Answers agent() and completion() calls of cells; without it they fail with a clear error. */
  bridge?: BridgeHandler;
  /** The kernel's sandbox (default: $OMP_EVAL_SANDBOX's mode, else none). */
  sandbox?: SandboxSettings;
  /** Its process, spawned already for these options (`prestartPython`): no other is spawned. */
  spawned?: Promise<KernelProcess>;
}

export interface ExecuteOptions {
  silent?: boolean;
  storeHistory?: boolean;
  /** Let input() ask the host (input_request frames, answered with sendInput). */
  allowStdin?: boolean;
  /** (with allowStdin) The host's input ends: it answers null (end of input) at its end. */
  stdinEnds?: boolean;
  /** Every frame of this cell as it arrives, `done` included. */
  onFrame?: (frame: Frame) => void;
  /**
   * The request went to an idle kernel, which should start the cell at once: a kernel that does
   * not (busy with what an earlier cell left running) makes the cell wait from here.
   */
  onSent?: () => void;
  /** Aborting interrupts the running cell, or drops it from the queue. */
  signal?: AbortSignal;
  /** The number the front end shows for the cell: its tracebacks say `Cell In[n]`. */
  cellNumber?: number;
  /** (`omp-eval run`) The script's line where the cell starts: its tracebacks name the script and line. */
  scriptLine?: number;
  /** Variables set in the kernel before the cell runs (null unsets one): the notebook's COLUMNS. */
  env?: Record<string, string | null>;
}

export type KernelExitReason = 'shutdown' | 'interrupt-timeout' | 'died' | 'protocol-error' | 'memory-limit';

export interface KernelExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why the process ended: we shut it down, we killed it after an unanswered interrupt, or it died. */
  reason: KernelExitReason;
  /** The last lines the process wrote to its own stderr. */
  stderrTail: string;
  /** reason `memory-limit`: the limit (MB) the kernel exceeded. */
  memoryLimitMb?: number;
}

export interface Completion {
  matches: string[];
  /** The text from start to end (the name before the cursor) is what a match replaces. */
  start: number;
  end: number;
}

/** Whether code typed so far is a whole cell; `indent` for the next line when it is not. */
export interface Completeness {
  status: CompletenessStatus;
  indent?: string;
}

/** The user's names in a kernel, or why they could not be listed. */
export interface Variables {
  variables: VariableInfo[];
  total: number;
  error?: string;
}

export interface CellError {
  ename: string;
  evalue: string;
  traceback: string[];
  /**
   * js: the code a cell passed to process.exit(); py: the exit status a SystemExit asks for; a
   * KernelDied error: the status the cell's code ended its kernel with (os._exit(n)).
   */
  exitCode?: number;
  /** py: what Python prints as a SystemExit with a code that is not an integer ends it. */
  exitMessage?: string;
}

export interface CellOutcome {
  id: string;
  status: 'ok' | 'error';
  executionCount: number;
  cancelled: boolean;
  /** The interrupt was not answered in time and the kernel was killed. */
  killed: boolean;
  error?: CellError;
  /** Set when the kernel process ended while this cell was running or queued. */
  exit?: KernelExit;
}

export class KernelStartError extends Error {
  constructor(
    message: string,
    readonly stderrTail = '',
  ) {
    super(stderrTail ? `${message}\n${stderrTail}` : message);
    this.name = 'KernelStartError';
  }
}

export function describeExit(exit: Pick<KernelExit, 'code' | 'signal'>): string {
  if (exit.signal) return `signal ${exit.signal}`;
  return `exit code ${exit.code}`;
}
