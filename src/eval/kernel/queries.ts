/**
 * A local kernel's questions between cells: completions, completeness, the user's variables. Each
 * is a request with an id answered by a reply frame (replies.ts). Only an idle kernel answers
 * (cells run on the same thread); a query that user code holds (a slow `__dir__`, a `__str__`)
 * is interrupted when its time is up.
 */
import {
  type CompletenessStatus,
  type CompleteReplyFrame,
  completeRequest,
  type IsCompleteReplyFrame,
  isCompleteRequest,
  type VariablesReplyFrame,
  variablesRequest,
} from '../protocol/index.js';
import type { KernelChannel } from './channel.js';
import type { PendingReplies } from './replies.js';
import type { KernelState } from './state.js';
import { type Completeness, type Completion, VARIABLE_NAME_TIMEOUT_MS, type Variables } from './types.js';

/** What the queries need of their kernel. */
export interface QueryTarget {
  state(): KernelState;
  /** "Python" or "JavaScript", for messages. */
  readonly label: string;
  /** A new request id for a query of `kind`. */
  nextId(kind: string): string;
  write(request: Parameters<KernelChannel['write']>[0]): void;
  /** Resolves true once the kernel is idle, false if it is not by `deadline` (ms since the epoch). */
  idleBy(deadline: number): Promise<boolean>;
  /** Interrupts the query the runner is answering (not a cell's code). */
  interruptQuery(): void;
}

export class KernelQueries {
  constructor(
    private readonly target: QueryTarget,
    private readonly replies: PendingReplies,
  ) {}

  /** Completions for the name before `cursor`; none from a busy kernel or after `timeoutMs`. */
  complete(code: string, cursor: number, timeoutMs: number): Promise<Completion> {
    const none = { matches: [], start: cursor, end: cursor };
    if (this.target.state() !== 'idle') return Promise.resolve(none);
    const id = this.target.nextId('complete');
    return this.replies.request(id, {
      timeoutMs,
      send: () => this.target.write(completeRequest(id, code, cursor)),
      read: ({ matches, start, end }: CompleteReplyFrame) => ({ matches, start, end }),
      fallback: () => none,
      // User code (a slow __dir__) holds the kernel: interrupt the completion, not a cell.
      onTimeout: () => this.target.interruptQuery(),
    });
  }

  /** Whether `code` is a whole cell, as the kernel's language reads it; `unknown` from a busy one. */
  isComplete(code: string, timeoutMs: number): Promise<Completeness> {
    const unknown = { status: 'unknown' as CompletenessStatus };
    if (this.target.state() !== 'idle') return Promise.resolve(unknown);
    const id = this.target.nextId('is-complete');
    return this.replies.request(id, {
      timeoutMs,
      send: () => this.target.write(isCompleteRequest(id, code)),
      read: ({ status, indent }: IsCompleteReplyFrame) => ({
        status,
        ...(indent !== undefined ? { indent } : {}),
      }),
      fallback: () => unknown,
    });
  }

  /**
   * The names the user defined (at most `limit` described), once the running cell is over. User
   * code runs here (a __str__): one that outlives `nameTimeoutMs` has its name listed as skipped,
   * and the kernel is asked to end the listing within most of `timeoutMs` (names left are listed
   * as skipped); past `timeoutMs` the listing is interrupted and an error given.
   */
  async variables(
    limit: number,
    timeoutMs: number,
    nameTimeoutMs = VARIABLE_NAME_TIMEOUT_MS,
  ): Promise<Variables> {
    const deadline = Date.now() + timeoutMs;
    const failed = (error: string) => ({ variables: [], total: 0, error });
    if (!(await this.target.idleBy(deadline)))
      return failed(
        this.target.state() === 'dead'
          ? `the ${this.target.label} kernel is not running`
          : 'the kernel stayed busy',
      );
    const id = this.target.nextId('variables');
    const left = Math.max(0, deadline - Date.now());
    // The kernel's own deadline leaves a fifth of the time (at most 1 s) for the reply to come.
    const kernelMs = Math.max(1, left - Math.min(1_000, left / 5));
    return this.replies.request(id, {
      timeoutMs: left,
      send: () => this.target.write(variablesRequest(id, limit, { nameTimeoutMs, timeoutMs: kernelMs })),
      read: ({ variables, total }: VariablesReplyFrame) => ({ variables, total }),
      fallback: () => failed('it took too long and was interrupted'),
      onTimeout: () => this.target.interruptQuery(),
    });
  }
}
