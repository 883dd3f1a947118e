/**
 * The wire protocol between the host and runner.py: NDJSON, one JSON object per `\n`-terminated
 * line, UTF-8. This module alone knows the frame shapes; everything else speaks typed frames.
 */
import { StringDecoder } from 'node:string_decoder';

/** A MIME bundle: MIME type → data (text, base64 for binary images, JSON for application/json). */
export type MimeBundle = Record<string, unknown>;

export interface ExecuteRequest {
  type?: 'execute';
  id: string;
  code: string;
  silent: boolean;
  storeHistory: boolean;
  allowStdin?: boolean;
  cwd?: string;
  env?: Record<string, string | null>;
  /** The kernel's init request: its code is the prelude, which `%reset` runs again. */
  init?: boolean;
  /** (js, init only) The key the runner puts on every frame; the host drops frames without it. */
  frameKey?: string;
}
export interface ExitRequest {
  type: 'exit';
}
export interface InputReplyRequest {
  type: 'input_reply';
  id: string;
  value: string;
}
export interface CompleteRequest {
  type: 'complete';
  id: string;
  code: string;
  cursor: number;
}
export type Request = ExecuteRequest | ExitRequest | InputReplyRequest | CompleteRequest;

/** `id` is null for output that happened between cells (background threads) and protocol errors. */
export type Frame =
  | { type: 'started'; id: string }
  | { type: 'stdout' | 'stderr'; id: string | null; data: string }
  | {
      type: 'display' | 'result';
      id: string | null;
      bundle: MimeBundle;
      /** display(obj, display_id=...): a later frame with `update` replaces this output. */
      displayId?: string;
      update?: boolean;
      /** text/plain is only the object's default repr(), and it offers a richer form. */
      plainIsRepr?: boolean;
    }
  | { type: 'error'; id: string | null; ename: string; evalue: string; traceback: string[] }
  | { type: 'input_request'; id: string; prompt: string; password: boolean }
  | { type: 'complete_reply'; id: string; matches: string[]; start: number; end: number }
  | {
      type: 'done';
      id: string;
      status: 'ok' | 'error';
      executionCount: number;
      cancelled: boolean;
    };

export type FrameType = Frame['type'];

export function encodeRequest(request: Request): string {
  return `${JSON.stringify(request)}\n`;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isId = (v: unknown): v is string | null => v === null || typeof v === 'string';
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks a parsed line against the frame shapes; returns the reason when it is not a frame. */
export function validateFrame(value: unknown): Frame | string {
  if (!isObject(value)) return 'not a JSON object';
  const v = value;
  switch (v.type) {
    case 'started':
      return isString(v.id) ? (v as Frame) : 'started frame without id';
    case 'stdout':
    case 'stderr':
      return isId(v.id) && isString(v.data) ? (v as Frame) : `${v.type} frame needs id and data`;
    case 'display':
    case 'result':
      return isId(v.id) && isObject(v.bundle) ? (v as Frame) : `${v.type} frame needs id and bundle`;
    case 'error':
      return isId(v.id) && isString(v.ename) && isString(v.evalue) && Array.isArray(v.traceback)
        ? (v as Frame)
        : 'error frame needs ename, evalue and traceback';
    case 'input_request':
      return isString(v.id) && isString(v.prompt)
        ? ({ ...v, password: v.password === true } as Frame)
        : 'input_request frame needs id and prompt';
    case 'complete_reply':
      return isString(v.id) &&
        Array.isArray(v.matches) &&
        v.matches.every(isString) &&
        typeof v.start === 'number' &&
        typeof v.end === 'number'
        ? (v as Frame)
        : 'complete_reply frame needs id, matches, start and end';
    case 'done':
      return isString(v.id) &&
        (v.status === 'ok' || v.status === 'error') &&
        typeof v.executionCount === 'number' &&
        typeof v.cancelled === 'boolean'
        ? (v as Frame)
        : 'done frame needs id, status, executionCount and cancelled';
    default:
      return `unknown frame type ${JSON.stringify(v.type)}`;
  }
}

/** What the splitter makes of one line: a frame, or noise (not JSON, or not a frame). */
export type Parsed = { kind: 'frame'; frame: Frame } | { kind: 'noise'; line: string; reason: string };

export function parseLine(line: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: 'noise', line, reason: 'not JSON' };
  }
  const frame = validateFrame(value);
  return typeof frame === 'string' ? { kind: 'noise', line, reason: frame } : { kind: 'frame', frame };
}

export const DEFAULT_MAX_FRAME_CHARS = 256 * 1024 * 1024;

export class FrameTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(
      `a frame from the kernel exceeded ${limit} characters without a newline; ` +
        'the kernel output stream cannot be trusted any more',
    );
    this.name = 'FrameTooLargeError';
  }
}

/**
 * Splits a byte stream into lines on `\n` only (never on U+2028/U+2029 or `\r`), decoding UTF-8
 * that is split across chunks. Pending pieces are kept in an array so a multi-megabyte frame
 * arriving in many chunks costs linear time.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private parts: string[] = [];
  private pendingChars = 0;

  constructor(private readonly maxLineChars = DEFAULT_MAX_FRAME_CHARS) {}

  /** Returns the complete lines in `chunk`; throws FrameTooLargeError past the cap. */
  push(chunk: Buffer | string): string[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const lines: string[] = [];
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      const piece = text.slice(start, nl);
      if (this.parts.length) {
        this.parts.push(piece);
        lines.push(this.parts.join(''));
        this.parts = [];
        this.pendingChars = 0;
      } else {
        lines.push(piece);
      }
      start = nl + 1;
    }
    if (start < text.length) {
      const rest = text.slice(start);
      this.parts.push(rest);
      this.pendingChars += rest.length;
      if (this.pendingChars > this.maxLineChars) {
        this.parts = [];
        this.pendingChars = 0;
        throw new FrameTooLargeError(this.maxLineChars);
      }
    }
    return lines;
  }

  /** The unterminated rest at end of stream, if any. */
  end(): string | undefined {
    const tail = this.decoder.end();
    if (tail) this.parts.push(tail);
    const rest = this.parts.join('');
    this.parts = [];
    this.pendingChars = 0;
    return rest.length ? rest : undefined;
  }
}
