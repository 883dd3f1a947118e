/**
 * The host end of a kernel's bridge: reads the calls agent() and completion() make, has the
 * handler answer each, and writes the replies. Calls in flight are cancelled when their cell is
 * interrupted, when the kernel gives up on one (`{cancel: id}`, its timeout), and all of them when
 * the kernel ends. A call over the size limit is answered at once with an error naming the limit.
 */

import type { Duplex } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Logger } from '../logger.js';
import {
  type BridgeHandler,
  type BridgeReply,
  bridgeError,
  bridgeReply,
  encodeBridgeReply,
  MAX_BRIDGE_CALL_CHARS,
  parseBridgeCall,
} from '../protocol/index.js';
import { structuredOutput } from '../schemas/structured.js';

const CANCELLED = 'cancelled: the cell was interrupted';

/**
 * An answer to a call with a `schema`: its output parsed and checked here, for either kernel
 * (`data`, or `schemaError`, which the kernel raises in the cell).
 */
async function withStructured(kind: string, payload: Record<string, unknown>, value: unknown) {
  const schema = payload.schema;
  if (schema === null || schema === undefined || !value || typeof value !== 'object') return value;
  const output = (value as { output?: unknown }).output;
  if (typeof output !== 'string')
    return {
      ...value,
      schemaError: `${kind} output is not text, so it cannot be checked against the schema`,
    };
  return { ...value, ...(await structuredOutput(output, schema, kind)) };
}
/** How much of an oversized line is kept to find the call's id (`{"id": 12, ...`). */
const HEAD_CHARS = 64;

/** A line of the bridge: its text, or the start of a line that was too long. */
export type BridgeLine = { text: string } | { oversized: string };

/**
 * Splits the bridge's byte stream into lines on `\n`. A line longer than `maxChars` is not kept:
 * its first characters are, and the rest is skipped up to its newline.
 */
export class BridgeLines {
  private readonly decoder = new StringDecoder('utf8');
  private parts: string[] = [];
  private pending = 0;
  /** The head of the line being skipped, while one is. */
  private skipping?: string;

  constructor(private readonly maxChars = MAX_BRIDGE_CALL_CHARS) {}

  push(chunk: Buffer | string): BridgeLine[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const lines: BridgeLine[] = [];
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      this.take(text.slice(start, nl));
      lines.push(this.finishLine());
      start = nl + 1;
    }
    if (start < text.length) this.take(text.slice(start));
    return lines;
  }

  private take(piece: string) {
    if (this.skipping !== undefined) return;
    this.parts.push(piece);
    this.pending += piece.length;
    if (this.pending > this.maxChars) {
      this.skipping = this.parts.join('').slice(0, HEAD_CHARS);
      this.parts = [];
      this.pending = 0;
    }
  }

  private finishLine(): BridgeLine {
    const line: BridgeLine =
      this.skipping !== undefined ? { oversized: this.skipping } : { text: this.parts.join('') };
    this.parts = [];
    this.pending = 0;
    this.skipping = undefined;
    return line;
  }
}

export class BridgeServer {
  /** Calls in flight, by id: the cell that made each, and the abort of its handler. */
  private readonly calls = new Map<number, { cell: string | null; controller: AbortController }>();
  private readonly lines = new BridgeLines();
  private oversizedSeen = false;

  constructor(
    private readonly stream: Duplex,
    private readonly handler: BridgeHandler | undefined,
    private readonly logger: Logger,
  ) {
    stream.on('error', () => {});
    stream.on('data', (chunk: Buffer) => this.onData(chunk));
  }

  private onData(chunk: Buffer) {
    for (const line of this.lines.push(chunk)) {
      if ('oversized' in line) this.onOversized(line.oversized);
      else if (line.text.trim()) this.onCall(line.text);
    }
  }

  /** A call over the limit (a kernel whose own check was bypassed): answered with the limit. */
  private onOversized(head: string) {
    const id = /^\s*\{\s*"id"\s*:\s*(\d+)\s*[,}]/.exec(head)?.[1];
    const problem = `a bridge call may be at most ${MAX_BRIDGE_CALL_CHARS} characters (16 MiB) of JSON`;
    if (!this.oversizedSeen) this.logger.warn(`the bridge refused a call: ${problem}`);
    this.oversizedSeen = true;
    if (id !== undefined) this.write(bridgeError(Number(id), problem));
  }

  private onCall(line: string) {
    const parsed = parseBridgeCall(line);
    if ('cancel' in parsed) {
      this.abandon(parsed.cancel);
      return;
    }
    if ('problem' in parsed) {
      this.logger.warn(parsed.problem);
      // A call with an id gets the reason as its answer, so its caller does not wait for ever.
      if (parsed.id !== undefined) this.write(bridgeError(parsed.id, parsed.problem));
      return;
    }
    const { id, kind, cell, payload } = parsed.call;
    if (!this.handler) {
      this.write(bridgeError(id, `${kind}() needs a host that runs it; none is configured`));
      return;
    }
    const controller = new AbortController();
    this.calls.set(id, { cell, controller });
    const answer = (reply: BridgeReply) => {
      if (this.calls.delete(id)) this.write(reply); // else answered already (cancelled)
    };
    this.handler({ kind, payload, cell }, controller.signal)
      .then((value) => withStructured(kind, payload, value))
      .then(
        (value) => answer(bridgeReply(id, value)),
        (err: unknown) => answer(bridgeError(id, err instanceof Error ? err.message : String(err))),
      );
  }

  /** The kernel gave up on call `id`: its command is aborted; nobody waits for the answer. */
  private abandon(id: number) {
    const call = this.calls.get(id);
    if (!call) return;
    this.calls.delete(id);
    call.controller.abort();
  }

  /** Answers the calls of cell `cell` (or every call, with `all`) with a cancellation. */
  cancel(cell: string | undefined, all = false): void {
    for (const [id, call] of this.calls) {
      if (!all && call.cell !== cell) continue;
      call.controller.abort();
      this.calls.delete(id);
      this.write(bridgeError(id, CANCELLED));
    }
  }

  /** The number of calls being answered now. */
  get inFlight(): number {
    return this.calls.size;
  }

  /** The kernel ended: abort every handler still working (nobody can read the answers). */
  close(): void {
    for (const call of this.calls.values()) call.controller.abort();
    this.calls.clear();
  }

  private write(reply: BridgeReply) {
    if (!this.stream.destroyed && this.stream.writable) this.stream.write(encodeBridgeReply(reply));
  }
}
