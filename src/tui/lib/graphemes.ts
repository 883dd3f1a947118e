/**
 * Text as the user sees it: graphemes (an emoji, a flag, a letter with its combining marks) and
 * words, found with Intl.Segmenter, so an edit never splits a character in two.
 */
import { columnsOf } from './textWidth.js';

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const words = new Intl.Segmenter(undefined, { granularity: 'word' });

/** The offset of the grapheme boundary before `offset` (0 at the start). */
export function previousGrapheme(text: string, offset: number): number {
  if (offset <= 0) return 0;
  return graphemes.segment(text).containing(offset - 1)?.index ?? 0;
}

/** The offset of the grapheme boundary after `offset` (the length at the end). */
export function nextGrapheme(text: string, offset: number): number {
  if (offset >= text.length) return text.length;
  const segment = graphemes.segment(text).containing(offset);
  return segment ? segment.index + segment.segment.length : text.length;
}

/** The grapheme starting at `offset` ('' at the end). */
export function graphemeAt(text: string, offset: number): string {
  return text.slice(offset, nextGrapheme(text, offset));
}

/** `offset` moved back to the grapheme boundary at or before it. */
export function snapToGrapheme(text: string, offset: number): number {
  if (offset <= 0) return 0;
  if (offset >= text.length) return text.length;
  return graphemes.segment(text).containing(offset)?.index ?? offset;
}

/** A name's characters: letters, digits, marks and `_` (not `.`, which joins names in code). */
const NAME_RUN = /[\p{L}\p{N}\p{M}\p{Pc}]+/gu;

/**
 * The words of `text` as [start, end] offsets: Unicode's word segments (a CJK word, a word with
 * its combining marks), each cut further at what is not a name's character, as IPython's editor
 * moves: `foo.bar_baz` is two words (Unicode takes it as one, as it takes `e.g.`).
 */
function wordSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  for (const segment of words.segment(text)) {
    if (!segment.isWordLike) continue;
    for (const run of segment.segment.matchAll(NAME_RUN))
      spans.push([segment.index + run.index, segment.index + run.index + run[0].length]);
  }
  return spans;
}

/** The start of the word before `offset` (skipping spaces and punctuation first), as Alt-B. */
export function previousWord(text: string, offset: number): number {
  return wordSpans(text.slice(0, offset)).at(-1)?.[0] ?? 0;
}

/** The end of the word after `offset`, as Alt-F. */
export function nextWord(text: string, offset: number): number {
  const first = wordSpans(text.slice(offset))[0];
  return first ? offset + first[1] : text.length;
}

/** Text without lone UTF-16 surrogates (a Python kernel cannot encode them). */
export function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

export { columnsOf } from './textWidth.js';

/** Columns between tab stops where the notebook draws code, counted from the start of the line. */
export const TAB_STOP = 4;

/**
 * The line's cells as drawn: a tab is the spaces up to the next tab stop. A raw tab is as wide as
 * the terminal makes it while the layout counts none: rows were left behind, a cursor not drawn.
 */
export function drawnCells(line: string): { offset: number; text: string; width: number }[] {
  const cells = graphemeCells(line);
  if (!line.includes('\t')) return cells;
  let column = 0;
  return cells.map((c) => {
    const width = c.text === '\t' ? TAB_STOP - (column % TAB_STOP) : c.width;
    column += width;
    return c.text === '\t' ? { offset: c.offset, text: ' '.repeat(width), width } : c;
  });
}

/** Text with its tabs drawn as spaces, line by line (see drawnCells). */
export function expandTabs(text: string): string {
  if (!text.includes('\t')) return text;
  return text
    .split('\n')
    .map((line) =>
      line.includes('\t')
        ? drawnCells(line)
            .map((c) => c.text)
            .join('')
        : line,
    )
    .join('\n');
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** The graphemes of a line with their offsets and widths. */
export function graphemeCells(text: string): { offset: number; text: string; width: number }[] {
  // Printable ASCII (most lines typed): a cell per character, without segmenting.
  if (PRINTABLE_ASCII.test(text)) return Array.from(text, (c, i) => ({ offset: i, text: c, width: 1 }));
  return [...graphemes.segment(text)].map((s) => ({
    offset: s.index,
    text: s.segment,
    width: columnsOf(s.segment),
  }));
}
