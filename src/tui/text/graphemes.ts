/**
 * Text as the user sees it: graphemes (an emoji, a flag, a letter with its combining marks) and
 * words, found with Intl.Segmenter, so an edit never splits a character in two.
 */
import { columnsOf } from './textWidth.js';

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

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

/** `offset` moved back to the grapheme boundary at or before it. */
export function snapToGrapheme(text: string, offset: number): number {
  if (offset <= 0) return 0;
  if (offset >= text.length) return text.length;
  return graphemes.segment(text).containing(offset)?.index ?? offset;
}

/** A name's characters: letters, digits, marks and `_` (Python's names may be Unicode). */
const NAME = /^[\p{L}\p{N}\p{M}\p{Pc}]/u;
const SPACE = /^\s/;

/**
 * What a grapheme is to a word motion: white space (0), a name's character (1), anything else
 * (2). `bigWord`: only space and the rest, as Ctrl-W sees it.
 */
const kindOf = (g: string, bigWord: boolean) => (SPACE.test(g) ? 0 : bigWord || NAME.test(g) ? 1 : 2);

/**
 * The words of the text as IPython's editor (prompt_toolkit's Document) finds them: a run of a
 * name's characters, or a run of anything else but space (`(`, `"`, `+=`), over any number of
 * lines. Runs are of graphemes, so a motion never parts an emoji or a letter from its marks.
 */
function graphemeKinds(text: string, bigWord: boolean): { index: number; end: number; kind: number }[] {
  const out: { index: number; end: number; kind: number }[] = [];
  for (const { segment, index } of graphemes.segment(text))
    out.push({ index, end: index + segment.length, kind: kindOf(segment, bigWord) });
  return out;
}

/**
 * The start of the word before `offset`, as prompt_toolkit's find_previous_word_beginning (Alt-B,
 * Alt-Backspace; Ctrl-W with `bigWord`): undefined when only space is before it.
 */
export function previousWordStart(text: string, offset: number, bigWord = false): number | undefined {
  const cells = graphemeKinds(text.slice(0, offset), bigWord);
  let i = cells.length - 1;
  while (i >= 0 && cells[i]?.kind === 0) i--;
  const kind = cells[i]?.kind;
  if (kind === undefined) return undefined;
  while (i > 0 && cells[i - 1]?.kind === kind) i--;
  return cells[i]?.index;
}

/**
 * The end of the word after `offset`, as prompt_toolkit's find_next_word_ending (Alt-F, Alt-D):
 * the search starts one character on, so `"x` and `a.` are one step from their start. Undefined
 * when no word starts after the character at `offset` (IPython then leaves the cursor).
 */
export function nextWordEnd(text: string, offset: number): number | undefined {
  const cells = graphemeKinds(text.slice(offset), false);
  let i = 1;
  while (i < cells.length && cells[i]?.kind === 0) i++;
  const kind = cells[i]?.kind;
  if (kind === undefined) return undefined;
  while (i + 1 < cells.length && cells[i + 1]?.kind === kind) i++;
  return offset + (cells[i]?.end ?? 0);
}

/** Text without lone UTF-16 surrogates (a Python kernel cannot encode them). */
export function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

export { columnsOf } from './textWidth.js';

/** Columns between tab stops where the notebook draws code, counted from the start of the line. */
const TAB_STOP = 4;

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

/**
 * UTF-16 units on each side of the cursor that can fill `width` columns: a column takes one unit,
 * two for a character beyond the BMP, more for a letter with marks or an emoji sequence.
 */
export const reach = (width: number) => width * 8 + 64;

/** `offset`, moved off the second half of a surrogate pair. */
export function snapOut(text: string, offset: number): number {
  const code = text.charCodeAt(offset);
  return code >= 0xdc00 && code <= 0xdfff ? offset + 1 : offset;
}

/**
 * The start of a line, as much of it as can be in view in `width` columns (Ink cuts the rest with
 * `…`): a long line is neither highlighted nor measured whole on every frame.
 */
export function lineHead(line: string, width: number): string {
  const end = reach(width);
  if (line.length <= end) return line;
  return line.slice(0, snapOut(line, end) === end ? end : end - 1);
}
