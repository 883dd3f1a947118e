/**
 * A bracketed paste being received. The terminal sends it in chunks (a few KB each through a pty);
 * they are cut into lines as they come and go into the editor once, at the paste's end marker, so
 * a paste costs time in proportion to its size: typing each chunk into the editor re-made the cell
 * and drew it again per chunk, which took a 1 MB paste 108 s.
 */
import { wellFormed } from '../text/graphemes.js';

export const PASTE_START = '\x1b[200~';
export const PASTE_END = '\x1b[201~';

/** The Ctrl-C byte: inside a paste, the person pressed it (no terminal pastes it as text). */
const CTRL_C = '\x03';

/** Control characters a paste drops: all but tab and the line breaks. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it drops
const DROPPED = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const NEEDS_CLEANING = /[\r\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;

export class Paste {
  /** The lines ended so far. */
  private lines: string[] = [];
  /** Pieces of the line not ended yet (a long line comes in many chunks). */
  private partial: string[] = [];
  /** The last chunk ended with CR: an LF that starts the next one is the same line break. */
  private afterCR = false;
  /** UTF-16 units received so far (what the progress message counts). */
  size = 0;
  /** Ctrl-C came inside the paste: the rest, up to its end marker, is dropped. */
  cancelled = false;

  /**
   * One input event inside the paste (text, or an escape sequence pasted as part of it), cut into
   * lines as it comes: the paste is never one string of its whole size besides its lines. Line
   * breaks become `\n`, other control characters are dropped, an escape sequence keeps its
   * printable part, and lone surrogates become U+FFFD (Ink's reads never split a pair).
   */
  add(raw: string): void {
    if (this.cancelled) return;
    if (raw.includes(CTRL_C)) {
      this.cancel();
      return;
    }
    this.size += raw.length;
    let text = this.afterCR && raw.startsWith('\n') ? raw.slice(1) : raw;
    this.afterCR = text.endsWith('\r');
    if (NEEDS_CLEANING.test(text)) text = text.replace(/\r\n?/g, '\n').replace(DROPPED, '');
    const pieces = wellFormed(text).split('\n');
    if (pieces.length === 1) {
      if (text) this.partial.push(pieces[0] as string);
      return;
    }
    this.partial.push(pieces[0] as string);
    this.lines.push(this.partial.join(''));
    for (let i = 1; i < pieces.length - 1; i++) this.lines.push(pieces[i] as string);
    this.partial = [pieces[pieces.length - 1] as string];
  }

  cancel(): void {
    this.cancelled = true;
    this.lines = [];
    this.partial = [];
  }

  /** The pasted text as its lines (one more than its line breaks), once. */
  take(): string[] {
    const lines = this.lines;
    lines.push(this.partial.join(''));
    this.lines = [];
    this.partial = [];
    return withoutGutter(lines);
  }
}

/** The gutter the notebook draws before a printed cell's code lines (CellBlock.tsx). */
const GUTTER = /^│ ?/;
/** A printed cell's header: its status glyph and execution count (`✓ [3] ok · 8 ms`). */
const HEADER = /^[○●✓✗⊘⏱☠·\u2800-\u28ff] \[(\d+|\*| )\]/;

/**
 * Code copied from the notebook's own scroll-back pastes back as code: when every line is a
 * printed cell's code line (`│ ` before it) or its header, the gutters and headers go, as the
 * kernel drops pasted `>>> ` and `In [n]: ` prompts. Anything else is left as it was pasted.
 */
export function withoutGutter(lines: string[]): string[] {
  const first = lines.find((line) => line.trim());
  if (first === undefined || !(GUTTER.test(first) || HEADER.test(first))) return lines;
  let gutters = 0;
  for (const line of lines) {
    if (GUTTER.test(line)) gutters++;
    else if (line.trim() && !HEADER.test(line)) return lines;
  }
  if (!gutters) return lines;
  return lines.filter((line) => !HEADER.test(line)).map((line) => line.replace(GUTTER, ''));
}

/** "3.2 MB": the size of a paste as its progress message says it (UTF-16 units, near enough). */
export function pasteSize(units: number): string {
  if (units < 1024 * 1024) return `${Math.round(units / 1024)} KB`;
  return `${(units / (1024 * 1024)).toFixed(1)} MB`;
}
