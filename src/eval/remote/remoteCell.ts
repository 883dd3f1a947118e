/**
 * One cell of a remote kernel: its execute_request, its Jupyter messages → the engine's frames
 * (`started` at execute_input, output, clear_output with `wait`, input_request, `done`), and its
 * outcome from the execute_reply, or from how it was cut short (a restart, a lost connection, a
 * shutdown).
 */
import type { Kernel as JupyterKernel, KernelMessage } from '@jupyterlab/services';
import type { CellError, CellOutcome, ExecuteOptions } from '../kernel/types.js';
import type { ErrorFrame, Frame } from '../protocol/index.js';
import { CLEAR_OUTPUT_BUNDLE, type JupyterMessage, readIopub } from './messages.js';

/** The parts of an execute_reply a cell reads. */
export interface ExecuteReply {
  status: string;
  execution_count?: number | null;
  ename?: string;
  evalue?: string;
  traceback?: string[];
}

/** What a sent cell tells its kernel. */
export interface SentCellHandlers {
  /** True while the cell is the kernel's running one: only then do its messages count. */
  running(): boolean;
  /** The cell started with an interrupt pending: it goes now. */
  interrupt(): void;
  /** The execute_reply came. */
  replied(reply: ExecuteReply): void;
}

/** A cell's note when it ended in a KeyboardInterrupt that omp-eval did not send. */
export const FOREIGN_INTERRUPT =
  'omp-eval did not interrupt this cell: the KeyboardInterrupt came from its own code, from another client of the Jupyter server, or from the server shutting the kernel down (it interrupts a kernel before it stops it).';

export class RemoteCell {
  /** The kernel began running it (execute_input, or its first busy status or output). */
  started = false;
  /** interrupt() came before `started`: the interrupt is sent when it starts. */
  interruptPending = false;
  interrupted = false;
  /** The interrupt went unanswered and the kernel is being restarted for it. */
  escalated = false;
  settled = false;
  /** The msg_id of its execute_request: iopub messages with this parent are the cell's. */
  msgId?: string;
  /** The header of the input_request being answered (input_reply's parent). */
  inputHeader?: unknown;
  private error?: CellError;
  private clearPending = false;
  onAbort?: () => void;
  dispose?: () => void;

  constructor(
    readonly id: string,
    readonly code: string,
    readonly options: ExecuteOptions,
    private readonly resolve: (outcome: CellOutcome) => void,
  ) {}

  /** Sends the cell's execute_request on `connection`; what comes back goes to the cell and `on`. */
  send(connection: JupyterKernel.IKernelConnection, on: SentCellHandlers): void {
    const { options } = this;
    const future = connection.requestExecute({
      code: this.code,
      allow_stdin: options.allowStdin === true,
      silent: options.silent === true,
      store_history: options.storeHistory ?? options.silent !== true,
      stop_on_error: false,
    });
    this.msgId = future.msg.header.msg_id;
    this.dispose = () => future.dispose();
    future.onIOPub = (msg) => {
      if (on.running() && this.iopub(msg) && this.interruptPending) on.interrupt();
    };
    future.onStdin = (msg) => {
      if (on.running() && msg.header.msg_type === 'input_request') this.inputRequest(msg);
    };
    future.done.then(
      (reply) => on.replied(reply.content as ExecuteReply),
      // The library dropped the request: a restart or a lost connection, which end the cell themselves.
      () => {},
    );
  }

  private emit(frame: Frame) {
    this.options.onFrame?.(frame);
  }

  /** Sends `started` once; true when it did now. */
  markStarted(): boolean {
    if (this.started) return false;
    this.started = true;
    this.emit({ type: 'started', id: this.id });
    return true;
  }

  /** One iopub message of this cell; true when it marks the cell's start. */
  iopub(msg: JupyterMessage): boolean {
    if (msg.header.msg_type === 'status')
      return (msg.content as { execution_state?: string }).execution_state === 'busy'
        ? this.markStarted()
        : false;
    const meaning = readIopub(msg, this.id);
    if (meaning.kind === 'other') return false;
    const started = this.markStarted();
    if (meaning.kind === 'clear') {
      if (meaning.wait) this.clearPending = true;
      else this.emitClear();
    } else if (meaning.kind === 'frame') {
      // clear_output(wait=True): the output goes when the next output comes.
      if (this.clearPending) this.emitClear();
      if (meaning.frame.type === 'error') this.error ??= errorOf(meaning.frame);
      this.emit(meaning.frame);
    }
    return started;
  }

  private emitClear() {
    this.clearPending = false;
    this.emit({ type: 'display', id: this.id, bundle: CLEAR_OUTPUT_BUNDLE });
  }

  /** input() in the cell: the front end is asked, its answer goes back as input_reply. */
  inputRequest(msg: JupyterMessage): void {
    this.markStarted();
    this.inputHeader = msg.header;
    const content = msg.content as { prompt?: unknown; password?: unknown };
    this.emit({
      type: 'input_request',
      id: this.id,
      prompt: String(content.prompt ?? ''),
      password: content.password === true,
    });
  }

  /** Answers the input_request being asked (none: nothing). */
  answerInput(connection: JupyterKernel.IKernelConnection, value: string): void {
    const header = this.inputHeader;
    if (!header) return;
    connection.sendInputReply(
      { status: 'ok', value },
      header as KernelMessage.IInputReplyMsg['parent_header'],
    );
  }

  /** The outcome the execute_reply gives; an error the kernel did not publish on iopub is reported. */
  replied(reply: ExecuteReply, lastCount: number): CellOutcome {
    this.markStarted();
    const ok = reply.status === 'ok';
    if (reply.status === 'error' && !this.error) {
      const frame: ErrorFrame = {
        type: 'error',
        id: this.id,
        ename: reply.ename ?? 'Error',
        evalue: reply.evalue ?? '',
        traceback: reply.traceback ?? [],
      };
      this.error = errorOf(frame);
      this.emit(frame);
    }
    // omp-eval sent no interrupt: the cell's own code raised it, or another client of the server,
    // or the server itself, which interrupts a kernel before it shuts it down. The cell says so.
    if (!ok && !this.interrupted && this.error?.ename === 'KeyboardInterrupt')
      this.emit({ type: 'stderr', id: this.id, data: `[${FOREIGN_INTERRUPT}]\n` });
    const executionCount = typeof reply.execution_count === 'number' ? reply.execution_count : lastCount;
    const cancelled = reply.status === 'aborted' || (this.interrupted && !ok);
    return this.done(ok, executionCount, cancelled, false);
  }

  /**
   * The outcome of a cell cut short (`ename`: KernelRestarted, KernelDied, ConnectionLost): the
   * reason goes into the cell as its error, so every front end shows it where it happened.
   */
  cutShort(
    ename: string,
    message: string,
    executionCount: number,
    opts: { killed?: boolean } = {},
  ): CellOutcome {
    this.error = { ename, evalue: message, traceback: [message] };
    this.emit({ type: 'error', id: this.id, ename, evalue: message, traceback: [message] });
    return this.done(false, executionCount, this.interrupted, opts.killed === true);
  }

  private done(ok: boolean, executionCount: number, cancelled: boolean, killed: boolean): CellOutcome {
    this.emit({ type: 'done', id: this.id, status: ok ? 'ok' : 'error', executionCount, cancelled });
    return {
      id: this.id,
      status: ok ? 'ok' : 'error',
      executionCount,
      cancelled,
      killed,
      ...(this.error ? { error: this.error } : {}),
    };
  }

  /** Ends the cell with `outcome` (once); its future and abort listener go. */
  settle(outcome: CellOutcome): void {
    if (this.settled) return;
    this.settled = true;
    if (this.onAbort) this.options.signal?.removeEventListener('abort', this.onAbort);
    this.dispose?.();
    this.resolve(outcome);
  }
}

function errorOf(frame: ErrorFrame): CellError {
  return { ename: frame.ename, evalue: frame.evalue, traceback: frame.traceback };
}
