/**
 * Text kept as the pieces it arrived in, for a line that may grow long (a cell printing a 200 MB
 * line, or lines of a megabyte). Such a line is never joined into one string: a string over
 * 128 KB is a large object of its own, and making one (joined, or flattened from `a + b`) cost
 * some 3 ms a megabyte here, most of it in fresh pages, which is what a tool call that printed
 * lines of a megabyte spent most of its time on. Only short ranges are ever joined.
 */
import { CUT_LOOKBACK, lastCharsCut, lastIndexOfChar, wholeCutPoint } from './text.js';

/** The UTF-16 unit at `at` of the pieces joined (NaN past the end). */
export function charCodeAt(parts: readonly string[], at: number): number {
  let offset = 0;
  for (const part of parts) {
    if (at < offset + part.length) return part.charCodeAt(at - offset);
    offset += part.length;
  }
  return Number.NaN;
}

/** Where a cut at `at` of the pieces joined leaves whole characters and escape sequences (wholeCutPoint). */
export function cutPointOf(parts: readonly string[], at: number, length: number): number {
  return wholeCutPoint((i) => charCodeAt(parts, i), at, length);
}

/** Characters `from` to `to` of the pieces joined, as one string (for short ranges only). */
export function sliceOf(parts: readonly string[], from: number, to: number): string {
  const out: string[] = [];
  let offset = 0;
  for (const part of parts) {
    const end = offset + part.length;
    if (end > from && offset < to) out.push(part.slice(Math.max(0, from - offset), to - offset));
    offset = end;
    if (offset >= to) break;
  }
  return out.length === 1 ? (out[0] as string) : out.join('');
}

/** The line not yet ended by a newline. */
export class OpenLine {
  private parts: string[] = [];
  length = 0;

  get empty(): boolean {
    return this.length === 0;
  }

  /**
   * Appends `piece`; a `\r` in it starts the line again from after the last one (`mayHaveCr`
   * false: the caller knows there is none, and the piece is not looked through for one).
   */
  append(piece: string, mayHaveCr = true): void {
    const cr = mayHaveCr ? lastIndexOfChar(piece, '\r') : -1;
    if (cr !== -1) {
      this.parts = [];
      this.length = 0;
    }
    const rest = cr === -1 ? piece : piece.slice(cr + 1);
    if (!rest) return;
    this.parts.push(rest);
    this.length += rest.length;
  }

  /**
   * Takes the last `n` characters off the line (backspaces, see applyBackspaces). Only the line's
   * end is joined, long enough for `n` characters and colour among them; the whole line only when
   * the cut comes so near that end's start that what lies before it could change it.
   */
  dropLast(n: number): void {
    let from = Math.max(0, this.length - (2 * n + 4096));
    let cut = lastCharsCut(sliceOf(this.parts, from, this.length), n);
    if (from > 0 && cut.end < CUT_LOOKBACK) {
      from = 0;
      cut = lastCharsCut(this.toString(), n);
    }
    const keep = from + cut.end;
    while (this.length > keep) {
      const part = this.parts.pop() as string;
      this.length -= part.length;
      if (this.length < keep) {
        this.parts.push(part.slice(0, keep - this.length));
        this.length = keep;
      }
    }
    if (cut.colour) {
      this.parts.push(cut.colour);
      this.length += cut.colour.length;
    }
  }

  /** Where a cut at `at` would leave whole characters (see cutPointOf). */
  cutPoint(at: number): number {
    return cutPointOf(this.parts, at, this.length);
  }

  /** Takes the first `n` characters off the line, as pieces. */
  shift(n: number): string[] {
    const taken: string[] = [];
    let left = n;
    while (left > 0 && this.parts.length) {
      const part = this.parts[0] as string;
      if (part.length <= left) {
        taken.push(part);
        this.parts.shift();
        left -= part.length;
      } else {
        taken.push(part.slice(0, left));
        this.parts[0] = part.slice(left);
        left = 0;
      }
    }
    this.length -= n - left;
    return taken;
  }

  /** Takes the whole line, as pieces, and leaves it empty. */
  take(): string[] {
    const parts = this.parts;
    this.parts = [];
    this.length = 0;
    return parts;
  }

  /** The line as one string (it is never longer than the sink's lineChars). */
  toString(): string {
    return this.parts.join('');
  }
}
