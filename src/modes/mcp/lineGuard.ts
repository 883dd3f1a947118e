/**
 * What the MCP server reads on stdin, line by line, before the SDK's transport does: a line that is
 * not JSON is answered with JSON-RPC's Parse error (-32700, id null), a JSON value that is no
 * JSON-RPC message with Invalid Request (-32600, with its id when it has one), and a line longer
 * than the transport takes (the SDK would close the connection) with Invalid Request too. Each is
 * then left out: the client hears what was wrong instead of waiting for an answer that never
 * comes, and the server goes on. Good lines pass unchanged.
 *
 * A batch (a JSON array) is refused the same way unless the negotiated revision has batches
 * (2025-03-26 only): then its messages pass one a line, and `batches` answers it as one array.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { ErrorCode, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { StdioBatches } from './batches.js';
import { batchRefusal } from './versions.js';

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
}

const NEWLINE = 0x0a;
const NEWLINE_BYTE = Buffer.from([NEWLINE]);

export class JsonRpcLineGuard extends Transform {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Within a line that was too long: the rest of it is dropped. */
  private skipping = false;

  constructor(
    /** Writes an answer to the client (one JSON-RPC response). */
    private readonly answer: (response: JsonRpcErrorResponse) => void,
    /** Says on stderr what was left out. */
    private readonly report: (what: string) => void,
    private readonly maxLineBytes = STDIO_DEFAULT_MAX_BUFFER_SIZE,
    /** Batches, for a connection whose revision has them; unset: every batch is refused. */
    private readonly batches?: StdioBatches,
  ) {
    super();
  }

  override _transform(chunk: Buffer | string, _: BufferEncoding, done: TransformCallback): void {
    let data = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    for (let nl = data.indexOf(NEWLINE); nl >= 0; nl = data.indexOf(NEWLINE)) {
      this.add(data.subarray(0, nl));
      if (!this.skipping) this.line(Buffer.concat(this.pending));
      this.pending = [];
      this.pendingBytes = 0;
      this.skipping = false;
      data = data.subarray(nl + 1);
    }
    this.add(data);
    done();
  }

  override _flush(done: TransformCallback): void {
    if (!this.skipping && this.pendingBytes > 0) this.line(Buffer.concat(this.pending));
    done();
  }

  /** Keeps a piece of the current line, unless the line grew too long. */
  private add(piece: Buffer) {
    if (this.skipping || piece.length === 0) return;
    this.pendingBytes += piece.length;
    // (the transport takes a line and its newline up to its limit)
    if (this.pendingBytes < this.maxLineBytes) {
      this.pending.push(piece);
      return;
    }
    this.pending = [];
    this.pendingBytes = 0;
    this.skipping = true;
    const mb = this.maxLineBytes / 1024 / 1024;
    this.fail(null, ErrorCode.InvalidRequest, `Invalid Request: a message longer than ${mb} MB was left out`);
  }

  /** One whole line: passed on as it came if it is a JSON-RPC message, else answered. */
  private line(bytes: Buffer) {
    const text = bytes.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.fail(null, ErrorCode.ParseError, `Parse error: the line is not JSON (${(err as Error).message})`);
      return;
    }
    if (Array.isArray(value)) {
      this.batch(value);
      return;
    }
    const problem = this.problem(value);
    if (problem) {
      if (problem.answer)
        this.fail(problem.answer.id, ErrorCode.InvalidRequest, problem.answer.error.message);
      return;
    }
    // (its own bytes: decoded and encoded again, invalid UTF-8 would grow, past the limit maybe)
    this.push(Buffer.concat([bytes.at(-1) === 0x0d ? bytes.subarray(0, -1) : bytes, NEWLINE_BYTE]));
  }

  /** What is wrong with a value that should be one JSON-RPC message, and its answer (none to a response). */
  private problem(value: unknown): { answer?: JsonRpcErrorResponse } | undefined {
    if (JSONRPCMessageSchema.safeParse(value).success) return undefined;
    const message = value as { id?: unknown; method?: unknown; result?: unknown; error?: unknown } | null;
    const problem = 'Invalid Request: not a JSON-RPC 2.0 request, notification or response';
    // A response is never answered (its id is one of ours: the client would take the answer
    // for its own request's); a request's id is given back when it has one.
    if (
      message &&
      typeof message === 'object' &&
      !('method' in message) &&
      ('result' in message || 'error' in message)
    ) {
      this.report(`${problem} (a response; not answered)`);
      return {};
    }
    const id = message && typeof message === 'object' && 'method' in message ? message.id : undefined;
    return {
      answer: {
        jsonrpc: '2.0',
        id: typeof id === 'string' || typeof id === 'number' ? id : null,
        error: { code: ErrorCode.InvalidRequest, message: problem },
      },
    };
  }

  /** A JSON-RPC batch: refused, or its messages passed one a line and its answer left to `batches`. */
  private batch(values: unknown[]) {
    const batches = this.batches;
    if (!batches?.allowed) {
      this.fail(null, ErrorCode.InvalidRequest, batchRefusal(batches?.version()));
      return;
    }
    if (!values.length) {
      this.fail(null, ErrorCode.InvalidRequest, 'Invalid Request: an empty batch');
      return;
    }
    const ids: (string | number)[] = [];
    const errors: JsonRpcErrorResponse[] = [];
    const lines: Buffer[] = [];
    for (const value of values) {
      const problem = this.problem(value);
      if (problem) {
        if (problem.answer) {
          this.report(problem.answer.error.message);
          errors.push(problem.answer);
        }
        continue;
      }
      const message = value as { id?: string | number; method?: string };
      if (message.method !== undefined && message.id !== undefined) ids.push(message.id);
      lines.push(Buffer.from(`${JSON.stringify(value)}\n`));
    }
    batches.begin(ids, errors);
    for (const line of lines) this.push(line);
  }

  private fail(id: string | number | null, code: number, message: string) {
    this.report(message);
    this.answer({ jsonrpc: '2.0', id, error: { code, message } });
  }
}
