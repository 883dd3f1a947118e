/**
 * A 2026-07-28 client is asked things through its own calls (multi round-trip requests): a call
 * whose cell asks (completion(), input()) answers `input_required` with the question and a
 * handle, `requestState`; the client asks its model or user and calls again with the answer and
 * the handle. The cell keeps running in its kernel all along, waiting for the answer; each round
 * of the call waits for the call's end or its next question, whichever comes first.
 */
import { randomUUID } from 'node:crypto';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  isInputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { AnswerSchema, ClientAsker, ClientRequest } from './clientAsk.js';
import type { CallExtra } from './connection.js';
import { DEFAULT_SESSION } from './tools.js';

/** How long a finished call's result waits for the client's next round. */
const KEEP_RESULT_MS = 10 * 60_000;

interface Question {
  request: ClientRequest;
  answer(value: unknown): void;
}

/** One call and its rounds. */
class RoundTrip {
  readonly id = randomUUID();
  private readonly controller = new AbortController();
  /** Questions sent (or to send) to the client and not answered yet, by key. */
  private readonly questions = new Map<string, Question>();
  private asked = 0;
  private wake?: () => void;
  /** The round being served, if one is. */
  private round?: ServerContext;
  result!: Promise<CallToolResult>;
  expiry?: NodeJS.Timeout;

  constructor(
    readonly tool: string,
    /** The session the call runs in. */
    readonly session: string,
    private readonly capabilities: ClientCapabilities | undefined,
  ) {}

  /** It asked, and no round of it is being served: only the client's next round moves it on. */
  get waiting(): boolean {
    return this.questions.size > 0 && this.round === undefined;
  }

  /** The call's view of its request: its signal, progress through the round served now, its asker. */
  extra(first: ServerContext): CallExtra {
    const asker: ClientAsker = {
      capabilities: this.capabilities,
      ask: (request, schema, options) => this.ask(request, schema, options),
    };
    return {
      signal: this.controller.signal,
      requestId: first.mcpReq.id,
      ...(first.mcpReq._meta ? { _meta: first.mcpReq._meta } : {}),
      sendNotification: (notification) => this.notify(notification),
      asker,
    } as CallExtra;
  }

  /**
   * Progress goes out with the round served now, under that round's token (the client's driver
   * gives each round its own); between rounds there is no request to tell.
   */
  private async notify(notification: { method: string; params?: Record<string, unknown> }): Promise<void> {
    const round = this.round;
    if (!round) return;
    if (notification.method === 'notifications/progress') {
      const token = round.mcpReq._meta?.progressToken;
      if (token === undefined) return;
      notification = { ...notification, params: { ...notification.params, progressToken: token } };
    }
    await round.mcpReq.notify(notification as Parameters<typeof round.mcpReq.notify>[0]);
  }

  private ask<T>(
    request: ClientRequest,
    schema: AnswerSchema<T>,
    { signal, timeoutMs }: { signal: AbortSignal; timeoutMs: number },
  ): Promise<T> {
    const key = `${request.method === 'sampling/createMessage' ? 'sampling' : 'input'}-${++this.asked}`;
    return new Promise<T>((resolve, reject) => {
      const done = () => {
        this.questions.delete(key);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        done();
        reject(new Error('cancelled'));
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(`no answer within ${Math.round(timeoutMs / 60_000)} min (the client did not call again)`),
        );
      }, timeoutMs);
      timer.unref();
      signal.addEventListener('abort', onAbort, { once: true });
      this.questions.set(key, {
        request,
        answer: (value) => {
          done();
          const parsed = schema.safeParse(value);
          if (parsed.success) resolve(parsed.data);
          else reject(new Error(`its answer is not a ${request.method} result: ${parsed.error.message}`));
        },
      });
      this.wake?.();
    });
  }

  /** Gives the questions the client answered in `ctx`'s round their answers. */
  takeAnswers(ctx: ServerContext): void {
    const answers = ctx.mcpReq.inputResponses ?? {};
    for (const [key, question] of [...this.questions]) {
      if (Object.hasOwn(answers, key)) question.answer(answers[key]);
    }
  }

  /** Serves one round: the call's result, or `input_required` with the questions open. */
  async serve(ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    this.round = ctx;
    const cancel = () => this.controller.abort();
    ctx.mcpReq.signal.addEventListener('abort', cancel, { once: true });
    try {
      const asking = new Promise<'asking'>((resolve) => {
        this.wake = () => resolve('asking');
        if (this.questions.size) resolve('asking');
      });
      const outcome = await Promise.race([this.result, asking]);
      if (outcome !== 'asking') return outcome;
      const inputRequests = Object.fromEntries([...this.questions].map(([key, q]) => [key, q.request]));
      return inputRequired({ inputRequests, requestState: this.id } as Parameters<typeof inputRequired>[0]);
    } finally {
      this.wake = undefined;
      this.round = undefined;
      ctx.mcpReq.signal.removeEventListener('abort', cancel);
    }
  }

  /** The call is given up (the connection closed): its cell's questions end unanswered. */
  abandon(): void {
    this.controller.abort();
  }
}

/** The session a call names (the tools' `session` argument; parsed and checked by the call). */
function sessionOf(args: unknown): string {
  const session = (args as { session?: unknown } | undefined)?.session;
  return typeof session === 'string' ? session : DEFAULT_SESSION;
}

/** The calls of one connection that asked their client something and wait for its next round. */
export class RoundTrips {
  private readonly calls = new Map<string, RoundTrip>();

  /** Serves a round of a call of `tool`: the first (runs the call with `run`) or a later one. */
  async serve(
    tool: string,
    args: unknown,
    ctx: ServerContext,
    run: (extra: CallExtra) => Promise<CallToolResult>,
  ): Promise<CallToolResult | InputRequiredResult> {
    const state = ctx.mcpReq.requestState<unknown>();
    let call: RoundTrip;
    if (state === undefined) {
      const capabilities = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as never] as
        | ClientCapabilities
        | undefined;
      const session = sessionOf(args);
      // A client that gave up a call between its rounds says nothing (it has no request open):
      // its next eval or restart of the session would wait behind the cell for good, and ends it.
      // (`variables` only reads: it waits its turn, as a call made beside the waiting one may.)
      if (tool !== 'variables')
        for (const other of this.calls.values())
          if (other.session === session && other.waiting) other.abandon();
      call = new RoundTrip(tool, session, capabilities);
      call.result = run(call.extra(ctx));
      // Once it ends, its result waits for the round that takes it, up to KEEP_RESULT_MS. (Read by
      // a round; the connection's end may leave none.)
      void call.result.catch(() => {}).then(() => this.expireLater(call));
    } else {
      const found = typeof state === 'string' ? this.calls.get(state) : undefined;
      if (!found || found.tool !== tool)
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Invalid or expired requestState: no ${tool} call of this server waits for it (a call's state is kept ${KEEP_RESULT_MS / 60_000} min after it ends); make the call again`,
        );
      call = found;
      clearTimeout(call.expiry);
      call.takeAnswers(ctx);
    }
    this.calls.set(call.id, call);
    try {
      const answer = await call.serve(ctx);
      if (!isInputRequiredResult(answer)) this.calls.delete(call.id);
      return answer;
    } catch (err) {
      this.calls.delete(call.id);
      throw err;
    }
  }

  /** A call that ended waiting for its client's next round is let go after KEEP_RESULT_MS. */
  private expireLater(call: RoundTrip): void {
    if (this.calls.get(call.id) !== call) return;
    call.expiry = setTimeout(() => this.calls.delete(call.id), KEEP_RESULT_MS);
    call.expiry.unref();
  }

  /** Ends every waiting call (the connection is closing). */
  close(): void {
    for (const call of this.calls.values()) {
      clearTimeout(call.expiry);
      call.abandon();
    }
    this.calls.clear();
  }
}
