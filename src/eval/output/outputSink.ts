/**
 * A cell's text output with bounded memory: the head and the tail are kept for display, and once
 * the output outgrows that, all of it goes to an artifact file named by `artifact://<id>`.
 *
 * Text is cleaned as it arrives: ANSI colour (SGR) is kept, other escape and control sequences
 * and NUL bytes are dropped, and a line rewritten with `\r` keeps only its last state.
 */
import { ArtifactFile } from './artifact.js';
import { charCodeAt, cutPointOf, OpenLine, sliceOf } from './openLine.js';
import { DEFAULT_SINK_LIMITS, type SinkLimits, type Truncation } from './sinkLimits.js';
import {
  applyBackspaces,
  isPlainText,
  lastIndexOfChar,
  PARTIAL_ESCAPE,
  PARTIAL_ESCAPE_CAP,
  sanitize,
  tailStart,
} from './text.js';

export { artifactDir, resolveArtifact } from './artifact.js';
export { DEFAULT_SINK_LIMITS, type SinkLimits, type Truncation } from './sinkLimits.js';

/** A piece of the tail this long keeps its end when it no longer fits whole, at least this much of it. */
const PARTIAL_MIN_CHARS = 1000;

export class OutputSink {
  private readonly limits: SinkLimits;
  private head = '';
  private headFull = false;
  private tail: string[] = [];
  private tailLength = 0;
  /** The line not yet ended: pieces, never joined while it may be long (openLine.ts). */
  private readonly line = new OpenLine();
  private carry = '';
  private totalChars = 0;
  private totalLines = 0;
  private droppedChars = 0;
  private droppedLines = 0;
  private artifact?: ArtifactFile;
  /** Why the full output is not in an artifact, when it is not. */
  private noArtifact?: string;

  /** Where its artifact goes: the executor's scope folder (artifact.ts), else the folder itself. */
  private readonly artifactFolder?: string;

  constructor(limits: Partial<SinkLimits> & { artifactDir?: string } = {}) {
    const { artifactDir: folder, ...rest } = limits;
    this.limits = { ...DEFAULT_SINK_LIMITS, ...rest };
    if (folder) this.artifactFolder = folder;
  }

  /** Why the full output is not (all) in the artifact, if it is not. */
  get artifactError(): string | undefined {
    return this.noArtifact ?? this.artifact?.error;
  }

  /**
   * Text that is an output of its own (a result, a display, a traceback): on a line of its own
   * when the text before left one open, as Jupyter shows each output apart (`partial` then 5 is
   * not `partial5`).
   */
  pushBlock(text: string): void {
    // (An escape sequence left unfinished before it is dropped, as at the end; a `\r` waiting in
    // the carry moved to the line's start, where a line with nothing on it needs no newline.)
    if (this.carry.startsWith('\x1b')) this.carry = '';
    this.push(this.line.empty ? text : `\n${text}`);
  }

  push(chunk: string): void {
    if (!this.limits.keep) {
      this.totalChars += chunk.length;
      return;
    }
    let text = this.carry + chunk;
    this.carry = '';
    if (text.includes('\b')) {
      const erased = applyBackspaces(text);
      text = erased.text;
      if (erased.before) this.line.dropLast(erased.before);
    }
    // Most output has neither a control character nor a `\r`: one scan says so, and then there is
    // nothing to clean up, nor any `\r` to look for again.
    const plain = isPlainText(text);
    if (!plain) text = this.cleanUp(text);
    let start = 0;
    // Whole lines without `\r` go in one block (a print loop's output); the rest line by line.
    const last = lastIndexOfChar(text, '\n');
    if (last !== -1 && (plain || !text.includes('\r'))) {
      const first = text.indexOf('\n');
      if (!this.line.empty) {
        this.endLine(text.slice(0, first));
        start = first + 1;
      }
      if (last >= start) this.commitLines(text.slice(start, last + 1));
      start = last + 1;
    } else {
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        this.endLine(text.slice(start, nl));
        start = nl + 1;
      }
    }
    this.appendToLine(text.slice(start), !plain);
  }

  /**
   * A chunk with control characters or `\r`: an escape sequence cut off at its end waits for the
   * next chunk (as does a `\r` that may begin a `\r\n`), the rest is sanitized, `\r\n` is `\n`.
   */
  private cleanUp(chunk: string): string {
    let text = chunk;
    // Only the text after the last ESC can hold an unfinished sequence.
    const esc = lastIndexOfChar(text, '\x1b');
    const partial = esc === -1 ? null : PARTIAL_ESCAPE.exec(text.slice(esc));
    if (partial) {
      // Wait for the rest of the sequence; one that never ends is dropped, never shown as text.
      if (partial[0].length < PARTIAL_ESCAPE_CAP) this.carry = partial[0];
      text = text.slice(0, esc + partial.index);
    }
    if (text.endsWith('\r')) {
      this.carry = `\r${this.carry}`;
      text = text.slice(0, -1);
    }
    return sanitize(text).replace(/\r\n/g, '\n');
  }

  /** Ends the open line with `rest`. */
  private endLine(rest: string) {
    this.appendToLine(rest);
    const length = this.line.length + 1;
    const parts = this.line.take();
    parts.push('\n');
    this.commitParts(parts, length);
  }

  /** `mayHaveCr` false: the caller knows that `piece` has no `\r` (the line is not restarted). */
  private appendToLine(piece: string, mayHaveCr = true) {
    this.line.append(piece, mayHaveCr);
    while (this.line.length > this.limits.lineChars) {
      const cut = this.line.cutPoint(this.limits.lineChars) || this.limits.lineChars;
      this.commitParts(this.line.shift(cut), cut);
    }
  }

  /** Commits a piece given as parts: joined when it is short (or fits the head), else as commitLong. */
  private commitParts(parts: string[], length: number) {
    const fitsHead = !this.headFull && this.head.length + length <= this.limits.headChars;
    if (length <= this.limits.tailChars || fitsHead)
      this.commit(parts.length === 1 ? (parts[0] as string) : parts.join(''));
    else this.commitLong(parts, length);
  }

  /**
   * Commits a piece longer than the tail (and than what is left of the head), given as parts that
   * are never joined: what is left of the head takes its start, the tail is its end alone, the
   * middle (and the old tail) is dropped to the artifact, which gets the whole piece. The same
   * outcome as commit() of the piece joined.
   */
  private commitLong(parts: string[], length: number) {
    this.totalChars += length;
    if ((parts.at(-1) as string).endsWith('\n')) this.totalLines++;
    if (this.artifact) for (const part of parts) this.artifact.write(part);
    else this.openArtifact(parts);
    let from = 0;
    if (!this.headFull) {
      this.headFull = true;
      from = cutPointOf(parts, this.limits.headChars - this.head.length, length);
      this.head += sliceOf(parts, 0, from);
    }
    for (const dropped of this.tail) this.countDropped(dropped.length, dropped.endsWith('\n') ? 1 : 0);
    let keep = Math.max(from, length - this.limits.tailChars);
    if (keep > from)
      keep = Math.max(
        from,
        tailStart((i) => charCodeAt(parts, i), keep, length),
      );
    if (keep > from) this.countDropped(keep - from, 0);
    this.tail = [sliceOf(parts, keep, length)];
    this.tailLength = length - keep;
  }

  /**
   * Commits whole lines (each ending in `\n`, none with `\r`) at once, with the same outcome as
   * committing them one by one: the head takes the lines that fit, the tail keeps the longest
   * run of last lines that fits (at least one), the rest is dropped (to the artifact).
   */
  private commitLines(block: string) {
    const ends: number[] = [];
    for (let nl = block.indexOf('\n'), from = 0; nl !== -1; from = nl + 1, nl = block.indexOf('\n', from)) {
      if (nl - from > this.limits.lineChars || nl - from >= this.limits.tailChars) {
        // A line to cut in pieces, or one too long for the tail: one at a time.
        for (const line of block.slice(0, -1).split('\n')) this.endLine(line);
        return;
      }
      ends.push(nl + 1);
    }
    this.totalChars += block.length;
    this.totalLines += ends.length;
    this.artifact?.write(block);
    let from = 0;
    if (!this.headFull) {
      const room = this.limits.headChars - this.head.length;
      let fit = 0;
      while (fit < ends.length && (ends[fit] as number) <= room) fit++;
      from = fit ? (ends[fit - 1] as number) : 0;
      this.head += block.slice(0, from);
      if (from === block.length) return;
      this.headFull = true;
    }
    this.keepTail(block, from, ends);
  }

  /**
   * The lines of `block` after `from` (ending at `ends`) join the tail, which keeps the longest
   * run of last pieces that fits (at least one), and the end of the piece before them when that is
   * long enough to read (as commit() one line at a time); what falls out of it is dropped.
   */
  private keepTail(block: string, from: number, ends: number[]) {
    const limit = this.limits.tailChars;
    const first = ends.findIndex((end) => end > from);
    const startOf = (i: number) => (i === first ? from : (ends[i - 1] as number));
    const lengthOf = (i: number) => (ends[i] as number) - startOf(i);
    let keep = ends.length - 1;
    let kept = lengthOf(keep);
    while (keep > first && kept + lengthOf(keep - 1) <= limit) kept += lengthOf(--keep);
    // Old pieces stay only behind all the new lines, as far as they fit.
    let oldFrom = this.tail.length;
    if (keep === first) {
      while (oldFrom > 0 && kept + (this.tail[oldFrom - 1] as string).length <= limit) {
        kept += (this.tail[--oldFrom] as string).length;
      }
    }
    const before = keep > first ? block.slice(startOf(keep - 1), ends[keep - 1]) : this.tail[oldFrom - 1];
    const end = before === undefined ? undefined : this.endOf(before, limit - kept);
    const droppedNew = startOf(keep) - from;
    if (oldFrom > 0 || droppedNew > 0) this.openArtifact(block.slice(from));
    for (const piece of this.tail.slice(0, oldFrom))
      this.countDropped(piece.length, piece.endsWith('\n') ? 1 : 0);
    if (droppedNew) this.countDropped(droppedNew, keep - first);
    if (end !== undefined) {
      // (counted as dropped above, whole: its end is kept, and its line is not left out)
      this.countDropped(-end.length, (before as string).endsWith('\n') ? -1 : 0);
      kept += end.length;
    }
    const added: string[] = [];
    for (let i = keep; i < ends.length; i++) added.push(block.slice(startOf(i), ends[i]));
    this.tail = [...(end !== undefined ? [end] : []), ...this.tail.slice(oldFrom), ...added];
    this.tailLength = kept;
  }

  /**
   * The end of `piece` that fills `room` in the tail, when the piece is long (a long line's last
   * part, before the short lines after it) and that end long enough to be worth reading; undefined
   * otherwise (short lines go whole).
   */
  private endOf(piece: string, room: number): string | undefined {
    if (piece.length < PARTIAL_MIN_CHARS || room < PARTIAL_MIN_CHARS) return undefined;
    const cut = tailStart((i) => piece.charCodeAt(i), piece.length - room, piece.length);
    return cut < piece.length ? piece.slice(cut) : undefined;
  }

  private countDropped(chars: number, lines: number) {
    this.droppedChars += chars;
    this.droppedLines += lines;
  }

  /**
   * Commits one piece (a line, or a part of a long one) no longer than the tail (commitParts
   * gives longer ones to commitLong): the head takes it while it fits, else the tail, whose oldest
   * pieces are dropped (to the artifact) while it is over its limit.
   */
  private commit(piece: string) {
    this.totalChars += piece.length;
    if (piece.endsWith('\n')) this.totalLines++;
    this.artifact?.write(piece);
    if (!this.headFull) {
      if (this.head.length + piece.length <= this.limits.headChars) {
        this.head += piece;
        return;
      }
      this.headFull = true;
    }
    if (this.tailLength + piece.length > this.limits.tailChars) this.openArtifact(piece);
    this.tail.push(piece);
    this.tailLength += piece.length;
    // The oldest pieces go while the tail is over its limit; one whose end still fills a readable
    // part of the tail keeps that end (a long line's last part, before the short lines after it).
    let drop = 0;
    while (this.tailLength > this.limits.tailChars && this.tail.length - drop > 1) {
      const oldest = this.tail[drop] as string;
      const end = this.endOf(oldest, oldest.length - (this.tailLength - this.limits.tailChars));
      if (end !== undefined) {
        this.countDropped(oldest.length - end.length, 0);
        this.tailLength -= oldest.length - end.length;
        this.tail[drop] = end;
        break;
      }
      this.countDropped(oldest.length, oldest.endsWith('\n') ? 1 : 0);
      this.tailLength -= oldest.length;
      drop++;
    }
    if (drop) this.tail = this.tail.slice(drop);
  }

  /**
   * Opens the artifact the first time something must be dropped, and writes everything seen so
   * far: the head, the tail, then `more` (what came with the tail but is not in it yet); from
   * then on everything committed is appended.
   */
  private openArtifact(more: string | readonly string[]) {
    if (this.artifact || this.noArtifact) return;
    const artifact = ArtifactFile.create('txt', this.artifactFolder);
    if (typeof artifact === 'string') {
      this.noArtifact = artifact;
      return;
    }
    this.artifact = artifact;
    artifact.write(this.head);
    for (const piece of this.tail) artifact.write(piece);
    if (typeof more === 'string') artifact.write(more);
    else for (const part of more) artifact.write(part);
  }

  /**
   * clear_output(): the text so far is no longer shown (Jupyter keeps only what follows a clear);
   * an artifact already begun keeps all of it, but the text no longer points to it.
   */
  clear(): void {
    this.head = '';
    this.headFull = false;
    this.tail = [];
    this.tailLength = 0;
    this.line.take();
    this.carry = '';
    this.droppedChars = 0;
    this.droppedLines = 0;
  }

  /** Flushes the open line and closes the artifact. Idempotent. */
  end(): void {
    if (this.carry) {
      const rest = this.carry.startsWith('\r') ? '' : this.carry;
      this.carry = '';
      if (rest) this.appendToLine(sanitize(rest));
    }
    if (!this.line.empty) {
      const length = this.line.length;
      this.commitParts(this.line.take(), length);
    }
    this.artifact?.close();
  }

  /** Where the full output is, as one phrase the marker and a front end's closing line share. */
  private get fullOutput(): string {
    const error = this.artifactError;
    const artifact = this.artifact;
    if (!artifact) return `the full output could not be saved: ${error ?? 'no artifact'}`;
    const name = `${artifact.uri} (${artifact.path})`;
    if (!error) return `full output: ${name}`;
    return `only the first ${artifact.savedChars} chars were saved, in ${name}: ${error}`;
  }

  /** The text to show: all of it, or head + an omission marker + tail. */
  get text(): string {
    const open = this.line.toString();
    if (!this.droppedChars) return this.head + this.tail.join('') + open;
    const lines = this.droppedLines ? `${this.droppedLines} line${this.droppedLines === 1 ? '' : 's'}, ` : '';
    const marker = `… [${lines}${this.droppedChars} chars omitted; ${this.fullOutput}]\n`;
    const head = this.head.endsWith('\n') || !this.head ? this.head : `${this.head}\n`;
    return `${head}${marker}${this.tail.join('')}${open}`;
  }

  get truncation(): Truncation | undefined {
    if (!this.droppedChars) return undefined;
    const error = this.artifactError;
    return {
      totalChars: this.totalChars + this.line.length,
      totalLines: this.totalLines,
      omittedChars: this.droppedChars,
      omittedLines: this.droppedLines,
      fullOutput: this.fullOutput,
      ...(this.artifact ? { artifact: this.artifact.uri, artifactPath: this.artifact.path } : {}),
      ...(error ? { artifactError: error } : {}),
    };
  }
}
