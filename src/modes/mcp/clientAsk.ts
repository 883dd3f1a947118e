/**
 * How a running call asks its client something: completion() a sampling request, input() an
 * elicitation form. Before 2026-07-28 the server sends the client a request that travels with the
 * call (over HTTP, on the call's stream); in 2026-07-28 the call answers `input_required` and the
 * client calls again with the answer (roundTrips.ts). Either way the cell waits for the answer.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ClientCapabilities, RequestId } from '@modelcontextprotocol/sdk/types.js';

/** The requests a cell's call makes of the client. */
export type ClientRequest = {
  method: 'sampling/createMessage' | 'elicitation/create';
  params: Record<string, unknown>;
};

/** A schema the answer is checked with (the v1 SDK's result schemas). */
export interface AnswerSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { message: string } };
}

export interface ClientAsker {
  /** What the client said it answers (sampling, elicitation); unset when it said nothing. */
  readonly capabilities: ClientCapabilities | undefined;
  /** Asks the client; resolves with its answer as `schema` reads it, rejects with why not. */
  ask<T>(
    request: ClientRequest,
    schema: AnswerSchema<T>,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<T>;
}

/** A call's asker before 2026-07-28: a request of the server's, related to the call `requestId`. */
export function requestAsker(server: Server, requestId: RequestId | undefined): ClientAsker {
  return {
    capabilities: server.getClientCapabilities(),
    ask: (request, schema, { signal, timeoutMs }) =>
      server.request(request, schema as Parameters<Server['request']>[1], {
        signal,
        timeout: timeoutMs,
        ...(requestId !== undefined ? { relatedRequestId: requestId } : {}),
      }) as Promise<never>,
  };
}
