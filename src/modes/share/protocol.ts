/**
 * The wire between an `omp-eval mcp` server and the notebooks that follow its sessions
 * (`omp-eval attach`): NDJSON over the server's Unix socket, one JSON object a line, split on
 * `\n` only, a line at most MAX_LINE characters. The client speaks first (`hello` with the secret).
 *
 * Client → server: hello, list, subscribe, and once following: run (a person's cell), interrupt. Server → client: welcome or refused (then the server
 * closes), sessions (the answer to list), subscribed (then the session's history and live events:
 * call, output, cell, callEnd), ended (the session or the server is gone), error.
 */
import { StringDecoder } from 'node:string_decoder';
import type { Language, OutputEvent } from '../../eval/index.js';

export const PROTOCOL_VERSION = 1;
/** The longest line either side takes (an image in a display can be large). */
const MAX_LINE = 32 * 1024 * 1024;

/** A session as `attach --list` shows it. */
export interface SessionInfo {
  /** `<server pid>/<n>`: what `omp-eval attach` takes. */
  id: string;
  /** The session's name in its MCP client's calls (`default`). */
  name: string;
  /** The MCP client's name, when it gave one. */
  client?: string;
  cwd: string;
  /** Languages with a live kernel. */
  languages: Language[];
  calls: number;
  cellsRun: number;
  /** Milliseconds since the last call ended (0 while one runs). */
  idleMs: number;
  busy: boolean;
  /** stdio or http: how the server speaks to its clients. */
  transport: string;
}

export interface CallCell {
  index: number;
  language: Language;
  code: string;
  title?: string;
}

/** How a cell ended, as the notebook needs it. */
export interface CellEnd {
  status: 'ok' | 'error' | 'cancelled' | 'skipped';
  durationMs: number;
  /** The cell reached its kernel (it gets an execution count). */
  started: boolean;
  timedOut?: boolean;
  kernelKilled?: boolean;
  ename?: string;
}

export type ClientMessage =
  | { t: 'hello'; v: number; secret: string }
  | { t: 'list' }
  | { t: 'subscribe'; session: string; history?: number }
  /** A cell the person typed, to run in the followed session's kernel, queued with the agent's calls. */
  | { t: 'run'; code: string; ref: string }
  /** Ctrl-C: interrupt the followed session's running cell. */
  | { t: 'interrupt' };

export type ServerMessage =
  | { t: 'welcome'; v: number; pid: number }
  | { t: 'refused'; message: string }
  | { t: 'sessions'; sessions: SessionInfo[] }
  | { t: 'subscribed'; session: SessionInfo }
  | {
      t: 'call';
      call: number;
      client?: string;
      cells: CallCell[];
      history?: boolean;
      /** A person's cell (unset: the agent's), and the `ref` of the `run` that asked for it. */
      by?: 'person';
      ref?: string;
    }
  | { t: 'output'; call: number; cell: number; event: OutputEvent }
  | ({ t: 'cell'; call: number; cell: number } & CellEnd)
  | { t: 'callEnd'; call: number }
  | { t: 'ended'; reason: string }
  | { t: 'notice'; text: string }
  | { t: 'error'; message: string };

export class ProtocolError extends Error {
  override name = 'ProtocolError';
}

export const encode = (message: ClientMessage | ServerMessage): string => `${JSON.stringify(message)}\n`;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A client's line as a message; throws ProtocolError with the reason when it is none. */
export function parseClientMessage(line: string): ClientMessage {
  const value = parseObject(line);
  switch (value.t) {
    case 'hello':
      if (typeof value.v !== 'number' || typeof value.secret !== 'string')
        throw new ProtocolError('hello needs a version (v) and the secret');
      return { t: 'hello', v: value.v, secret: value.secret };
    case 'list':
      return { t: 'list' };
    case 'subscribe': {
      if (typeof value.session !== 'string' || !value.session)
        throw new ProtocolError('subscribe needs a session');
      const history = value.history;
      if (history !== undefined && (typeof history !== 'number' || !Number.isInteger(history) || history < 0))
        throw new ProtocolError('history must be a whole number of calls');
      return { t: 'subscribe', session: value.session, ...(history !== undefined ? { history } : {}) };
    }
    case 'run':
      if (typeof value.code !== 'string' || typeof value.ref !== 'string' || !value.ref)
        throw new ProtocolError('run needs the code and a ref');
      return { t: 'run', code: value.code, ref: value.ref };
    case 'interrupt':
      return { t: 'interrupt' };
    default:
      throw new ProtocolError(`unknown message type ${JSON.stringify(value.t)}`);
  }
}

const SERVER_TYPES = new Set([
  'welcome',
  'refused',
  'sessions',
  'subscribed',
  'call',
  'output',
  'cell',
  'callEnd',
  'ended',
  'notice',
  'error',
]);

/** A server's line as a message (its type checked; the server is the user's own omp-eval). */
export function parseServerMessage(line: string): ServerMessage {
  const value = parseObject(line);
  if (typeof value.t !== 'string' || !SERVER_TYPES.has(value.t))
    throw new ProtocolError(`unknown message type ${JSON.stringify(value.t)}`);
  return value as unknown as ServerMessage;
}

function parseObject(line: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new ProtocolError('a line that is not JSON');
  }
  if (!isObject(value)) throw new ProtocolError('a line that is not a JSON object');
  return value;
}

/**
 * Splits a byte stream into lines on `\n` only (UTF-8 kept whole across chunks); a line longer
 * than `max` characters is an error (`onLine` is not called for it, and the stream should be closed).
 */
export class LineReader {
  private readonly decoder = new StringDecoder('utf8');
  private pending: string[] = [];
  private pendingLength = 0;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly max = MAX_LINE,
  ) {}

  /** Takes a chunk; throws ProtocolError once a line is too long. */
  push(chunk: Buffer | string): void {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      const piece = text.slice(start, end);
      this.check(piece.length);
      const line = this.pending.length ? this.pending.join('') + piece : piece;
      this.pending = [];
      this.pendingLength = 0;
      start = end + 1;
      if (line.trim()) this.onLine(line);
    }
    if (start < text.length) {
      const rest = text.slice(start);
      this.check(rest.length);
      this.pending.push(rest);
      this.pendingLength += rest.length;
    }
  }

  private check(more: number): void {
    if (this.pendingLength + more > this.max)
      throw new ProtocolError(`a line longer than ${Math.round(this.max / 1024 / 1024)} MB`);
  }
}
