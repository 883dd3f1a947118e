/**
 * A cell's text output with bounded memory: the head and the tail are kept for display, and once
 * the output outgrows that, all of it goes to an artifact file named by `artifact://<id>`.
 *
 * Text is cleaned as it arrives: ANSI colour (SGR) is kept, other escape and control sequences
 * and NUL bytes are dropped, and a line rewritten with `\r` keeps only its last state.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, lstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SinkLimits {
  /** Characters kept from the start. */
  headChars: number;
  /** Characters kept from the end. */
  tailChars: number;
  /** A line longer than this is committed in pieces (bounds memory for output without newlines). */
  lineChars: number;
}

export const DEFAULT_SINK_LIMITS: SinkLimits = { headChars: 20_000, tailChars: 30_000, lineChars: 1 << 20 };

export interface Truncation {
  totalChars: number;
  totalLines: number;
  omittedChars: number;
  omittedLines: number;
  artifact: string;
  artifactPath: string;
}

const ARTIFACT_PREFIX = 'artifact://';

export function artifactDir(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  const dir = join(tmpdir(), `omp-eval-artifacts-${uid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || (typeof process.getuid === 'function' && st.uid !== process.getuid())) {
    throw new Error(`artifact directory ${dir} is not a private directory`);
  }
  return dir;
}

/** The file an `artifact://<id>` URI names. */
export function resolveArtifact(uri: string): string {
  const id = uri.startsWith(ARTIFACT_PREFIX) ? uri.slice(ARTIFACT_PREFIX.length) : uri;
  if (!/^[\w-]+$/.test(id)) throw new Error(`not an artifact id: ${uri}`);
  return join(artifactDir(), `${id}.txt`);
}

/* Escape sequences: CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), and two-byte ESC x. */
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
const SGR = /^\x1b\[[0-9;:]*m$/;
/* C0 controls other than \t, \n, \r and ESC; plus DEL. */
const CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]/g;
/* An escape sequence cut off at the end of a chunk. */
const PARTIAL_ESCAPE = /\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*|)$/;

/** Drops control characters and non-colour escape sequences. */
export function sanitize(text: string): string {
  return text.replace(ESCAPES, (seq) => (SGR.test(seq) ? seq : '')).replace(CONTROLS, '');
}

export class OutputSink {
  private readonly limits: SinkLimits;
  private head = '';
  private headFull = false;
  private tail: string[] = [];
  private tailLength = 0;
  private line = '';
  private carry = '';
  private totalChars = 0;
  private totalLines = 0;
  private droppedChars = 0;
  private droppedLines = 0;
  private artifactFd?: number;
  private artifactId?: string;
  private artifactPath?: string;

  constructor(limits: Partial<SinkLimits> = {}) {
    this.limits = { ...DEFAULT_SINK_LIMITS, ...limits };
  }

  push(chunk: string): void {
    let text = this.carry + chunk;
    this.carry = '';
    const partial = PARTIAL_ESCAPE.exec(text);
    if (partial && partial[0].length < 256) {
      this.carry = partial[0];
      text = text.slice(0, partial.index);
    }
    if (text.endsWith('\r')) {
      this.carry = `\r${this.carry}`;
      text = text.slice(0, -1);
    }
    text = sanitize(text).replace(/\r\n/g, '\n');
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      this.appendToLine(text.slice(start, nl));
      this.commit(`${this.line}\n`);
      this.line = '';
      start = nl + 1;
    }
    this.appendToLine(text.slice(start));
  }

  private appendToLine(piece: string) {
    const cr = piece.lastIndexOf('\r');
    this.line = cr === -1 ? this.line + piece : piece.slice(cr + 1);
    while (this.line.length > this.limits.lineChars) {
      this.commit(this.line.slice(0, this.limits.lineChars));
      this.line = this.line.slice(this.limits.lineChars);
    }
  }

  private commit(piece: string) {
    this.totalChars += piece.length;
    if (piece.endsWith('\n')) this.totalLines++;
    if (this.artifactFd !== undefined) writeSync(this.artifactFd, piece);
    if (!this.headFull) {
      if (this.head.length + piece.length <= this.limits.headChars) {
        this.head += piece;
        return;
      }
      this.headFull = true;
    }
    this.tail.push(piece);
    this.tailLength += piece.length;
    while (this.tailLength > this.limits.tailChars && this.tail.length > 1) {
      const dropped = this.tail.shift() as string;
      this.tailLength -= dropped.length;
      this.ensureArtifact(dropped);
      this.droppedChars += dropped.length;
      if (dropped.endsWith('\n')) this.droppedLines++;
    }
  }

  /**
   * Opens the artifact the first time something must be dropped, and writes everything seen so
   * far (head, the dropped piece, the tail); from then on commit() appends each piece.
   */
  private ensureArtifact(dropped: string) {
    if (this.artifactId) return;
    this.artifactId = randomUUID();
    this.artifactPath = join(artifactDir(), `${this.artifactId}.txt`);
    this.artifactFd = openSync(this.artifactPath, 'wx', 0o600);
    writeSync(this.artifactFd, this.head);
    writeSync(this.artifactFd, dropped);
    for (const piece of this.tail) writeSync(this.artifactFd, piece);
  }

  /** Flushes the open line and closes the artifact. Idempotent. */
  end(): void {
    if (this.carry) {
      const rest = this.carry.startsWith('\r') ? '' : this.carry;
      this.carry = '';
      if (rest) this.appendToLine(sanitize(rest));
    }
    if (this.line) {
      this.commit(this.line);
      this.line = '';
    }
    if (this.artifactFd !== undefined) {
      closeSync(this.artifactFd);
      this.artifactFd = undefined;
    }
  }

  /** The text to show: all of it, or head + an omission marker + tail. */
  get text(): string {
    const open = this.line;
    if (!this.droppedChars) return this.head + this.tail.join('') + open;
    const marker = `… [${this.droppedLines} lines, ${this.droppedChars} chars omitted; full output: ${ARTIFACT_PREFIX}${this.artifactId}]\n`;
    const head = this.head.endsWith('\n') || !this.head ? this.head : `${this.head}\n`;
    return `${head}${marker}${this.tail.join('')}${open}`;
  }

  get truncation(): Truncation | undefined {
    if (!this.droppedChars || !this.artifactId || !this.artifactPath) return undefined;
    return {
      totalChars: this.totalChars + this.line.length,
      totalLines: this.totalLines,
      omittedChars: this.droppedChars,
      omittedLines: this.droppedLines,
      artifact: `${ARTIFACT_PREFIX}${this.artifactId}`,
      artifactPath: this.artifactPath,
    };
  }
}
