/**
 * The host end of a Python kernel's bridge (fd 3): reads the calls agent() and completion() make,
 * has the handler answer each, and writes the replies. Calls in flight are cancelled when their
 * cell is interrupted, and all of them when the kernel ends.
 */
import type { Duplex } from 'node:stream';
import type { Logger } from '../logger.js';
import {
  type BridgeHandler,
  type BridgeReply,
  bridgeError,
  bridgeReply,
  encodeBridgeReply,
  LineSplitter,
  parseBridgeCall,
} from '../protocol/index.js';

const MAX_CALL_CHARS = 16 * 1024 * 1024;
const CANCELLED = 'cancelled: the cell was interrupted';

export class BridgeServer {
  /** Calls in flight, by id: the cell that made each, and the abort of its handler. */
  private readonly calls = new Map<number, { cell: string | null; controller: AbortController }>();
  private readonly splitter = new LineSplitter(MAX_CALL_CHARS);

  constructor(
    private readonly stream: Duplex,
    private readonly handler: BridgeHandler | undefined,
    private readonly logger: Logger,
  ) {
    stream.on('error', () => {});
    stream.on('data', (chunk: Buffer) => this.onData(chunk));
  }

  private onData(chunk: Buffer) {
    let lines: string[];
    try {
      lines = this.splitter.push(chunk);
    } catch (err) {
      this.logger.warn(`the bridge dropped a call: ${(err as Error).message}`);
      return;
    }
    for (const line of lines) if (line.trim()) this.onCall(line);
  }

  private onCall(line: string) {
    const parsed = parseBridgeCall(line);
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
    this.handler({ kind, payload, cell }, controller.signal).then(
      (value) => answer(bridgeReply(id, value)),
      (err: unknown) => answer(bridgeError(id, err instanceof Error ? err.message : String(err))),
    );
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

  /** The kernel ended: abort every handler still working (nobody can read the answers). */
  close(): void {
    for (const call of this.calls.values()) call.controller.abort();
    this.calls.clear();
  }

  private write(reply: BridgeReply) {
    if (!this.stream.destroyed && this.stream.writable) this.stream.write(encodeBridgeReply(reply));
  }
}
