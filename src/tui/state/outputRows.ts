/**
 * The rows a cell's output keeps: the first HEAD_ROWS rows, then the last TAIL_ROWS rows, with at
 * most KEPT_CHARS characters in all; what falls between is only counted. The buffer that makes
 * the rows (output.ts) is told when something is first left out, to begin its spill file.
 */
import type { ImageOutput } from '../../eval/index.js';

export type Stream = 'stdout' | 'stderr' | 'result' | 'display' | 'error' | 'notice' | 'status';

export interface TextRow {
  kind: 'text';
  stream: Stream;
  text: string;
  /** Characters of this line left out past MAX_LINE_CHARS. */
  cut?: number;
  /** The line has no newline yet: more text continues it. */
  open?: boolean;
  /** The open line ended with `\r`: the next text replaces it (a newline keeps it). */
  rewind?: boolean;
  /** The rich output (display or result) this row shows, by index into Output.rich. */
  rich?: number;
}

export interface ImageRow {
  kind: 'image';
  image: ImageOutput;
  /** Half-block rendering, made when the image arrived. */
  ansi?: string;
  /** Terminal columns to draw it in, from the display's width metadata. */
  columns?: number;
  rich?: number;
}

export type Row = TextRow | ImageRow;

export const HEAD_ROWS = 200;
export const TAIL_ROWS = 800;
/** Characters kept in rows, head and tail together. */
export const KEPT_CHARS = 400_000;

const rowChars = (row: Row) => (row.kind === 'text' ? row.text.length : 0);

export class Rows {
  private head: Row[] = [];
  private tail: Row[] = [];
  private tailStart = 0;
  private keptChars = 0;
  private omitted = 0;

  /** `leftOut` is called whenever a row or a line is left out. */
  constructor(private readonly leftOut: () => void) {}

  /** Rows go to the tail now (the head is full). */
  inTail(): boolean {
    return this.tail.length > this.tailStart;
  }

  last(): Row | undefined {
    return this.inTail() ? this.tail.at(-1) : this.head.at(-1);
  }

  /** Counts `lines` whole lines as left out (never made into rows). */
  leaveOut(lines: number): void {
    this.omitted += lines;
    this.leftOut();
  }

  // (No eviction for a row grown here, the open line, which a `\r` may shorten again: the next row
  // pushed evicts, as reading whole lines would. Until then KEPT_CHARS may be one row over.)
  replaceLast(row: Row): void {
    const old = this.last();
    if (old) this.keptChars -= rowChars(old);
    this.keptChars += rowChars(row);
    if (this.inTail()) this.tail[this.tail.length - 1] = row;
    else this.head[this.head.length - 1] = row;
    // (An open line that grew can take the rows past KEPT_CHARS, as a new row can.)
    this.trim();
  }

  push(row: Row): void {
    this.keptChars += rowChars(row);
    if (this.head.length < HEAD_ROWS && !this.inTail() && this.keptChars <= KEPT_CHARS / 4) {
      this.head.push(row);
      return;
    }
    this.tail.push(row);
    this.trim();
  }

  /** Leaves out the oldest tail rows while there are more than TAIL_ROWS or KEPT_CHARS (never the last). */
  private trim(): void {
    while (
      this.tail.length - this.tailStart > 1 &&
      (this.tail.length - this.tailStart > TAIL_ROWS || this.keptChars > KEPT_CHARS)
    ) {
      this.leftOut();
      this.keptChars -= rowChars(this.tail[this.tailStart] as Row);
      this.tailStart++;
      this.omitted++;
    }
    if (this.tailStart > TAIL_ROWS) {
      this.tail = this.tail.slice(this.tailStart);
      this.tailStart = 0;
    }
  }

  clear(): void {
    this.head = [];
    this.tail = [];
    this.tailStart = 0;
    this.keptChars = 0;
    this.omitted = 0;
  }

  snapshot(): { head: Row[]; tail: Row[]; omitted: number } {
    return { head: this.head.slice(), tail: this.tail.slice(this.tailStart), omitted: this.omitted };
  }
}
