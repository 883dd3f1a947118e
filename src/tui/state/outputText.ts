/**
 * Reading the text a cell's output buffer (output.ts) holds: it is kept as the reads it came in,
 * never joined into one long string (a string over 128 KB is a large object in V8, costly to make
 * and to collect), and the rows made of it are copies of their own.
 */
import { lastIndexOfChar } from '../../eval/index.js';

/**
 * `text` as a string of its own. A slice of a longer string (a line of a batch) keeps the whole
 * batch alive in V8, and a joined row keeps its pieces: the rows kept would hold on to most of
 * what a cell printed, for the collector to copy and promote again and again. Prepending a
 * character and slicing it off again makes V8 copy the text into a new flat string.
 */
export function detached(text: string): string {
  return text.length < 13 ? text : ` ${text}`.slice(1);
}

/** Rows of whole lines a tail can keep: `lines` at most, and `chars` characters at most. */
export interface TailBound {
  lines: number;
  /** Characters in all (a row counts its line's characters, at most `lineChars`). */
  chars: number;
  lineChars: number;
  /**
   * Whether text `i` becomes rows of exactly its characters (no control character, no `\r`):
   * only lines made of such text count toward `chars`, lest a line be counted longer than its row.
   */
  plain: (i: number) => boolean;
}

/**
 * The offset in `texts` (joined) of the newline that ends the line before the last lines a tail
 * can keep: the last `bound.lines` whole lines, fewer when their rows hold more than `bound.chars`
 * characters (the lines before are left out whatever follows); -1 if all can be kept.
 */
export function tailCut(texts: readonly string[], total: number, bound: TailBound): number {
  let found = 0;
  let offset = total;
  let chars = 0;
  /** Where the newline found last (later in the text) is. */
  let later = -1;
  /** The texts from `plainFrom` on are plain (checked when the characters first counted). */
  let plainFrom = texts.length;
  let counting = true;
  for (let i = texts.length - 1; i >= 0; i--) {
    const text = texts[i] as string;
    offset -= text.length;
    for (
      let at = lastIndexOfChar(text, '\n');
      at !== -1;
      at = at > 0 ? lastIndexOfChar(text, '\n', at) : -1
    ) {
      const nl = offset + at;
      if (++found === bound.lines + 1) return nl;
      if (counting && later !== -1) {
        chars += Math.min(later - nl - 1, bound.lineChars);
        if (chars > bound.chars) {
          // (Checked only now: most output never fills the tail by its characters.)
          while (plainFrom > i && bound.plain(plainFrom - 1)) plainFrom--;
          if (plainFrom === i) return nl;
          counting = false;
        }
      }
      later = nl;
    }
  }
  return -1;
}

/** The texts (joined) from `from` on, as pieces of them. */
export function textsFrom(texts: readonly string[], from: number): string[] {
  const out: string[] = [];
  let offset = 0;
  for (const text of texts) {
    if (offset + text.length > from) out.push(offset >= from ? text : text.slice(from - offset));
    offset += text.length;
  }
  return out;
}

/**
 * The first `end` characters of `texts` (joined), as batches that end at a newline, so that a
 * line is never cut in two: each text from after its first newline to after its last is a batch
 * of its own (a slice, not a copy), and the line that runs across two texts is a small batch
 * joined from both. A text with no newline at all is part of a long line: it is a batch as it
 * is, ended before a `\r` that may begin a `\r\n`.
 */
export class BatchReader {
  private index = 0;
  /** Characters of `texts` read. */
  private read = 0;
  /** Where the next batch begins (joined). */
  private at = 0;
  /** The start of a line that the text read last did not end. */
  private carry = '';
  private readonly ready: string[] = [];

  constructor(
    private readonly texts: readonly string[],
    private readonly end: number,
  ) {}

  next(): { text: string; at: number } | undefined {
    while (!this.ready.length && this.read < this.end) this.readText();
    let text = this.ready.shift();
    if (text === undefined && this.carry) {
      text = this.carry;
      this.carry = '';
    }
    if (text === undefined) return undefined;
    const at = this.at;
    this.at += text.length;
    return { text, at };
  }

  private readText(): void {
    const whole = this.texts[this.index++] as string;
    const text = whole.length <= this.end - this.read ? whole : whole.slice(0, this.end - this.read);
    this.read += text.length;
    const final = this.read >= this.end;
    let from = 0;
    if (this.carry) {
      const nl = text.indexOf('\n');
      if (nl === -1) {
        // Both are pieces of a long line: each is a batch of its own. (Joined, two texts of a
        // pipe's read made a string of 128 KB, a large object of its own, for every other read
        // of a line of a megabyte. A `\r` that ends the carry is no `\r\n`: no newline follows.)
        this.ready.push(this.carry);
        const cr = !final && text.endsWith('\r');
        this.carry = cr ? '\r' : '';
        this.ready.push(cr ? text.slice(0, -1) : text);
        return;
      }
      this.ready.push(this.carry + text.slice(0, nl + 1));
      this.carry = '';
      from = nl + 1;
    }
    const keep = final ? text.length : lastIndexOfChar(text, '\n') + 1;
    if (keep > from) this.ready.push(text.slice(from, keep));
    if (keep < text.length) this.carry = text.slice(keep);
  }
}
