/** A kernel's cells (queued or running), and how one ended when no `done` frame said so. */
import type { ErrorFrame, ExecuteRequest } from '../protocol/index.js';
import type { CellError, CellOutcome, ExecuteOptions, KernelExit, KernelExitReason } from './types.js';
import { describeExit } from './types.js';

/** What a cell that was running when the kernel ended is told, by the reason it ended. */
const DEATH_MESSAGES: Record<KernelExitReason, (label: string, detail?: string) => string> = {
  'interrupt-timeout': () => 'The kernel did not respond to the interrupt and was killed',
  shutdown: () => 'The kernel was shut down while this cell was running',
  died: (label) => `The ${label} kernel died while running this cell`,
  'protocol-error': (_, detail) => `The kernel was stopped because its output could not be read: ${detail}`,
  'memory-limit': (label, detail) =>
    `The ${label} kernel exceeded ${detail} MB and was stopped (--memory-limit); the next cell runs in a new kernel`,
};

export function cancelledOutcome(id: string, executionCount: number): CellOutcome {
  return { id, status: 'error', executionCount, cancelled: true, killed: false };
}

/** The outcome of a cell whose kernel is gone, with the exit and the tail of the kernel's stderr. */
export function deadOutcome(
  id: string,
  executionCount: number,
  message: string,
  exit: KernelExit | undefined,
): CellOutcome {
  const detail = exit ? ` (${describeExit(exit)})` : '';
  return {
    id,
    status: 'error',
    executionCount,
    cancelled: false,
    killed: false,
    error: {
      ename: 'KernelDied',
      evalue: `${message}${detail}`,
      traceback: exit?.stderrTail ? exit.stderrTail.trimEnd().split('\n').slice(-20) : [],
    },
    ...(exit ? { exit } : {}),
  };
}

/**
 * The outcome of a cell that was running (`ran`) or queued when the kernel exited. A running
 * cell keeps the error it reported itself; one killed after an unanswered interrupt is cancelled.
 */
export function exitOutcome(
  cell: { id: string; error?: CellError },
  ran: boolean,
  exit: KernelExit,
  context: { label: string; executionCount: number; protocolError?: string },
): CellOutcome {
  const message = ran
    ? DEATH_MESSAGES[exit.reason](
        context.label,
        exit.reason === 'memory-limit' ? String(exit.memoryLimitMb) : context.protocolError,
      )
    : 'The kernel exited before this cell ran';
  const outcome = deadOutcome(cell.id, context.executionCount, message, exit);
  if (ran && exit.reason === 'interrupt-timeout') {
    outcome.cancelled = true;
    outcome.killed = true;
  }
  if (ran && cell.error) outcome.error = { ...cell.error };
  else if (ran && exit.reason === 'died' && exit.signal === null && exit.code !== null && outcome.error)
    // The cell's code ended the process itself (os._exit(n), process.reallyExit(n)): the status
    // it asked for, as a script's own end (`omp-eval run` ends with it, 0 too).
    outcome.error.exitCode = exit.code;
  return outcome;
}

/** A cell in a kernel's queue or running. */
export interface Cell {
  request: ExecuteRequest;
  options: ExecuteOptions;
  resolve: (outcome: CellOutcome) => void;
  error?: CellError;
  onAbort?: () => void;
  /** The runner sent `started`: from then on SIGINT reaches the cell. */
  started?: boolean;
  /** interrupt() came before `started`: SIGINT is sent when it arrives. */
  interruptPending?: boolean;
}

/** The error a cell's `error` frame reports. */
export function cellErrorOf(frame: ErrorFrame): CellError {
  return {
    ename: frame.ename,
    evalue: frame.evalue,
    traceback: frame.traceback,
    ...(frame.exitCode !== undefined ? { exitCode: frame.exitCode } : {}),
    ...(frame.exitMessage !== undefined ? { exitMessage: frame.exitMessage } : {}),
  };
}
