/**
 * JSON-RPC batches over stdio, for the one MCP revision that has them (2025-03-26; 2025-06-18
 * removed them). The line guard hands a batch's messages to the SDK's transport one by one (it
 * reads one message a line); the answers to the batch's requests are held as they go out and
 * written together, as one array, once the last is in, as JSON-RPC 2.0 answers a batch.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { allowsBatches } from './versions.js';

type Id = string | number;

interface Batch {
  waiting: Set<Id>;
  answers: unknown[];
}

export class StdioBatches {
  /** The open batch of each request id still unanswered. */
  private readonly byId = new Map<Id, Batch>();

  constructor(
    /** The revision the connection negotiated (unset before initialize). */
    readonly version: () => string | undefined,
    /** Writes one line to the client. */
    private readonly write: (line: string) => void,
  ) {}

  /** Whether a batch is taken now. */
  get allowed(): boolean {
    return allowsBatches(this.version());
  }

  /**
   * A batch comes in: its requests (`ids`) are answered together, with `errors` (the answers to
   * its members that were no JSON-RPC message). A batch of notifications alone gets no answer.
   */
  begin(ids: Id[], errors: unknown[]): void {
    const batch: Batch = { waiting: new Set(ids), answers: [...errors] };
    if (!batch.waiting.size) {
      if (batch.answers.length) this.write(`${JSON.stringify(batch.answers)}\n`);
      return;
    }
    for (const id of batch.waiting) this.byId.set(id, batch);
  }

  /** A message going out: true when it answers a batch's request and is held for the batch's answer. */
  hold(message: JSONRPCMessage): boolean {
    if (!this.byId.size || !('id' in message) || 'method' in message) return false;
    const batch = this.byId.get(message.id as Id);
    if (!batch) return false;
    this.byId.delete(message.id as Id);
    batch.waiting.delete(message.id as Id);
    batch.answers.push(message);
    if (!batch.waiting.size) this.write(`${JSON.stringify(batch.answers)}\n`);
    return true;
  }
}
