/**
 * A cell's text output with bounded memory: the head and the tail are kept for display, and once
 * the output outgrows that, all of it goes to an artifact file named by `artifact://<id>`.
 *
 * Text is cleaned as it arrives: ANSI colour (SGR) is kept, other escape and control sequences
 * and NUL bytes are dropped, and a line rewritten with `\r` keeps only its last state.
 */
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SinkLimits {
  /** Characters kept from the start. */
  headChars: number;
  /** Characters kept from the end. */
  tailChars: number;
  /** A line longer than this is committed in pieces (bounds memory for output without newlines). */
  lineChars: number;
  /** Keep text at all (false: only count it; nothing in memory, no artifact). */
  keep: boolean;
}

export const DEFAULT_SINK_LIMITS: SinkLimits = {
  headChars: 20_000,
  tailChars: 30_000,
  lineChars: 1 << 20,
  keep: true,
};

/** Artifacts older than this are removed when a new one is written. */
const ARTIFACT_MAX_AGE_MS = 24 * 60 * 60 * 1000;

export interface Truncation {
  totalChars: number;
  totalLines: number;
  omittedChars: number;
  omittedLines: number;
  /** Where all of the output is (absent when it could not be saved: see artifactError). */
  artifact?: string;
  artifactPath?: string;
  artifactError?: string;
}

const ARTIFACT_PREFIX = 'artifact://';

export function artifactDir(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  const dir = join(tmpdir(), `omp-eval-artifacts-${uid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || (typeof process.getuid === 'function' && st.uid !== process.getuid())) {
    throw new Error(`${dir} is not a private directory of this user`);
  }
  return dir;
}

let swept = false;

/** Removes artifacts older than a day, once per process. */
function sweepArtifacts(dir: string) {
  if (swept) return;
  swept = true;
  const cutoff = Date.now() - ARTIFACT_MAX_AGE_MS;
  for (const name of readdirSync(dir)) {
    try {
      const file = join(dir, name);
      if (statSync(file).mtimeMs < cutoff) unlinkSync(file);
    } catch {
      // raced with another process
    }
  }
}

/** The file an `artifact://<id>` URI names. */
export function resolveArtifact(uri: string): string {
  const id = uri.startsWith(ARTIFACT_PREFIX) ? uri.slice(ARTIFACT_PREFIX.length) : uri;
  if (!/^[\w-]+$/.test(id)) throw new Error(`not an artifact id: ${uri}`);
  return join(artifactDir(), `${id}.txt`);
}

/*
 * Escape sequences: CSI (ESC [ or 8-bit CSI, params, final), strings (OSC ESC ], DCS ESC P, SOS ESC X, PM ESC ^,
 * APC ESC _, ended by BEL or ST), and the rest (ESC, intermediates 0x20-0x2f, a final byte:
 * ESC c, ESC ( 0, ESC 7, ESC =, ESC # 8). A lone ESC is dropped by CONTROLS.
 */
const ESCAPES = /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -/]*[0-~]/g;
const SGR = /^\x1b\[[0-9;:]*m$/;
/* C0 controls other than \t, \n and \r (ESC included: whatever is left of it is junk); DEL; C1. */
const CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g;
/* An escape sequence cut off at the end of a chunk. */
const PARTIAL_ESCAPE = /\x1b(?:\[[0-?]*[ -/]*|[\]PX^_][^\x07\x1b]*|[ -/]*)$/;
/* How long an unfinished escape sequence may wait for its end before it is dropped. */
const PARTIAL_ESCAPE_CAP = 4096;

const JUNK = new RegExp(`${ESCAPES.source}|${CONTROLS.source}`, 'g');

/** Drops control characters and escape sequences, except colour (SGR). */
export function sanitize(text: string): string {
  return text.replace(JUNK, (seq) => (SGR.test(seq) ? seq : ''));
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
  /** Why the full output is not in an artifact, when it is not. */
  artifactError?: string;

  constructor(limits: Partial<SinkLimits> = {}) {
    this.limits = { ...DEFAULT_SINK_LIMITS, ...limits };
  }

  push(chunk: string): void {
    if (!this.limits.keep) {
      this.totalChars += chunk.length;
      return;
    }
    let text = this.carry + chunk;
    this.carry = '';
    const partial = PARTIAL_ESCAPE.exec(text);
    if (partial) {
      // Wait for the rest of the sequence; one that never ends is dropped, never shown as text.
      if (partial[0].length < PARTIAL_ESCAPE_CAP) this.carry = partial[0];
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
    if (!this.limits.keep) return;
    if (this.artifactFd !== undefined) this.writeArtifact(piece);
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
    if (this.artifactId || this.artifactError) return;
    try {
      const dir = artifactDir();
      sweepArtifacts(dir);
      const id = randomUUID();
      const path = join(dir, `${id}.txt`);
      this.artifactFd = openSync(path, 'wx', 0o600);
      this.artifactId = id;
      this.artifactPath = path;
    } catch (err) {
      this.artifactError = (err as Error).message;
      return;
    }
    this.writeArtifact(this.head);
    this.writeArtifact(dropped);
    for (const piece of this.tail) this.writeArtifact(piece);
  }

  /** Appends to the artifact; a failing write (disk full) ends the artifact, not the cell. */
  private writeArtifact(piece: string) {
    if (this.artifactFd === undefined) return;
    try {
      writeSync(this.artifactFd, piece);
    } catch (err) {
      this.artifactError = `the full output could not be saved: ${(err as Error).message}`;
      this.closeArtifact();
    }
  }

  private closeArtifact() {
    if (this.artifactFd === undefined) return;
    try {
      closeSync(this.artifactFd);
    } catch {
      // nothing left to do
    }
    this.artifactFd = undefined;
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
    this.closeArtifact();
  }

  /** The text to show: all of it, or head + an omission marker + tail. */
  get text(): string {
    const open = this.line;
    if (!this.droppedChars) return this.head + this.tail.join('') + open;
    const where = this.artifactId
      ? `full output: ${ARTIFACT_PREFIX}${this.artifactId}${this.artifactError ? ` (incomplete: ${this.artifactError})` : ''}`
      : `the full output could not be saved: ${this.artifactError}`;
    const marker = `… [${this.droppedLines} lines, ${this.droppedChars} chars omitted; ${where}]\n`;
    const head = this.head.endsWith('\n') || !this.head ? this.head : `${this.head}\n`;
    return `${head}${marker}${this.tail.join('')}${open}`;
  }

  get truncation(): Truncation | undefined {
    if (!this.droppedChars) return undefined;
    return {
      totalChars: this.totalChars + this.line.length,
      totalLines: this.totalLines,
      omittedChars: this.droppedChars,
      omittedLines: this.droppedLines,
      ...(this.artifactId && this.artifactPath
        ? { artifact: `${ARTIFACT_PREFIX}${this.artifactId}`, artifactPath: this.artifactPath }
        : {}),
      ...(this.artifactError ? { artifactError: this.artifactError } : {}),
    };
  }
}
