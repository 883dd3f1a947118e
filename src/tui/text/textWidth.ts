/**
 * How many terminal columns text takes, measured fast: the notebook measures its status line and
 * its live rows on every frame, and Ink measures every text it lays out. string-width segments
 * text into graphemes, which is slow; text of printable ASCII and the notebook's own narrow glyphs
 * needs none of it, and the widths of recent short strings are kept.
 *
 * The Ink bundle (scripts/bundle-ink.mjs) uses this module in place of string-width and of its
 * text measuring, whose cache kept every text ever drawn.
 */
import stringWidth from 'string-width';
import stripAnsi from 'strip-ansi';

/**
 * Text of one column per UTF-16 unit: printable ASCII and the narrow glyphs the notebook draws
 * (status marks, box lines, the spinner's braille).
 */
const NARROW = /^[\x20-\x7e·…─│○●✓✗⊘\u2800-\u28ff]*$/;
const widths = new Map<string, number>();
/** Strings whose widths are kept; the cache starts over when it is full. */
const CACHED = 1024;
const CACHED_CHARS = 1000;

/** The columns a string takes in the terminal (wide CJK and emoji count two; colour takes none). */
export function columnsOf(text: string): number {
  if (NARROW.test(text)) return text.length;
  let width = widths.get(text);
  if (width === undefined) {
    // Coloured narrow text (the status line) is narrow too: string-width would segment it, and
    // its first emoji test compiles a regular expression of every emoji (some 30 ms at start).
    const plain = text.includes('\x1b') || text.includes('\x9b') ? stripAnsi(text) : text;
    width = NARROW.test(plain) ? plain.length : stringWidth(plain);
    keep(widths, text, width, CACHED_CHARS);
  }
  return width;
}

/** Caches `value` for a text of at most `maxChars`; a full cache starts over. */
export function keep<V>(cache: Map<string, V>, text: string, value: V, maxChars: number): void {
  if (text.length > maxChars) return;
  if (cache.size >= CACHED) cache.clear();
  cache.set(text, value);
}

/**
 * string-width's signature, for the libraries bundled with Ink: the Ink bundle imports this module
 * in string-width's place (scripts/ink-patches.mjs), so nothing of ours names it.
 * @public
 */
export default function inkStringWidth(text: string, options?: Parameters<typeof stringWidth>[1]): number {
  return options ? stringWidth(text, options) : columnsOf(text);
}

const sizes = new Map<string, { width: number; height: number }>();

/** Ink's measureText (the widest line and the number of lines), with a bounded cache. */
export function measureText(text: string): { width: number; height: number } {
  if (text.length === 0) return { width: 0, height: 0 };
  let size = sizes.get(text);
  if (!size) {
    const lines = text.split('\n');
    let width = 0;
    for (const line of lines) width = Math.max(width, columnsOf(line));
    size = { width, height: lines.length };
    keep(sizes, text, size, 10 * CACHED_CHARS);
  }
  return size;
}
