/**
 * The prompt's multi-line editor as a pure state machine: text as lines, a cursor at a grapheme
 * boundary, and the edits the keys make. Every edit moves by graphemes and words
 * (Intl.Segmenter), so emoji, flags and combining marks stay whole and no lone surrogate is made.
 */
import { autoIndent, cellLanguage, type Language } from '../../eval/index.js';
import {
  nextGrapheme,
  nextWordEnd,
  previousGrapheme,
  previousWordStart,
  snapToGrapheme,
  wellFormed,
} from '../text/graphemes.js';

export interface EditorState {
  lines: string[];
  row: number;
  /** A UTF-16 offset into the cursor's line, always at a grapheme boundary. */
  col: number;
}

export const emptyEditor = (): EditorState => ({ lines: [''], row: 0, col: 0 });

export const editorText = (s: EditorState): string => s.lines.join('\n');

const lineOf = (s: EditorState, row = s.row) => s.lines[row] ?? '';

export function fromText(text: string): EditorState {
  const lines = wellFormed(text).split('\n');
  return { lines, row: lines.length - 1, col: (lines.at(-1) ?? '').length };
}

/** The cursor as an offset into the whole text. */
export function cursorOffset(s: EditorState): number {
  return s.lines.slice(0, s.row).reduce((n, l) => n + l.length + 1, 0) + s.col;
}

export function insert(s: EditorState, raw: string): EditorState {
  return insertLines(s, wellFormed(raw).split('\n'));
}

/**
 * Text given as its lines (`pieces`, well formed, taken over) inserted at the cursor: a paste,
 * which is never joined into one string to be split again.
 */
export function insertLines(s: EditorState, pieces: string[]): EditorState {
  const line = lineOf(s);
  const before = line.slice(0, s.col);
  const after = line.slice(s.col);
  if (pieces.length === 1) {
    const text = pieces[0] ?? '';
    const lines = s.lines.slice();
    lines[s.row] = before + text + after;
    return { lines, row: s.row, col: s.col + text.length };
  }
  // (concat, not splice with a spread: a pasted cell can have millions of lines, more than a call
  // takes arguments)
  const last = pieces.at(-1) ?? '';
  pieces[0] = before + pieces[0];
  pieces[pieces.length - 1] = last + after;
  const lines = s.lines.slice(0, s.row).concat(pieces, s.lines.slice(s.row + 1));
  return { lines, row: s.row + pieces.length - 1, col: last.length };
}

/**
 * Text typed at the cursor. In a JavaScript cell, a closing bracket typed on a line of nothing
 * but indentation goes back one level (two spaces, the level an opening bracket added).
 */
export function type(s: EditorState, text: string, language: Language): EditorState {
  const before = lineOf(s).slice(0, s.col);
  const closing = /^[)\]}]$/.test(text) && /^ {2,}$/.test(before) && !lineOf(s).slice(s.col).trim();
  if (!closing || cellLanguage(s.lines.join('\n'), language).language !== 'js') return insert(s, text);
  return insert(replaceLine(s, lineOf(s).slice(2), s.col - 2), text);
}

/** A new line at the cursor, indented like the line above (one level more after a `:`). */
export function newline(s: EditorState): EditorState {
  return insert(s, `\n${autoIndent(lineOf(s).slice(0, s.col))}`);
}

function replaceLine(s: EditorState, text: string, col: number): EditorState {
  const lines = s.lines.slice();
  lines[s.row] = text;
  return { lines, row: s.row, col };
}

/** Deletes the grapheme before the cursor (a whole indentation level inside the indentation). */
export function backspace(s: EditorState): EditorState {
  const line = lineOf(s);
  if (s.col > 0) {
    const indentOnly = /^ *$/.test(line.slice(0, s.col));
    const from = indentOnly && s.col % 4 === 0 ? s.col - 4 : previousGrapheme(line, s.col);
    return replaceLine(s, line.slice(0, from) + line.slice(s.col), from);
  }
  if (s.row === 0) return s;
  const lines = s.lines.slice();
  const prev = lines[s.row - 1] ?? '';
  lines.splice(s.row - 1, 2, prev + line);
  return { lines, row: s.row - 1, col: prev.length };
}

/** Deletes the grapheme under the cursor, or joins the next line at the end of a line. */
export function deleteForward(s: EditorState): EditorState {
  const line = lineOf(s);
  if (s.col < line.length) {
    return replaceLine(s, line.slice(0, s.col) + line.slice(nextGrapheme(line, s.col)), s.col);
  }
  if (s.row === s.lines.length - 1) return s;
  const lines = s.lines.slice();
  lines.splice(s.row, 2, line + (lines[s.row + 1] ?? ''));
  return { lines, row: s.row, col: s.col };
}

export function move(s: EditorState, dRow: number, dCol: number): EditorState {
  if (dRow) {
    const row = Math.min(s.lines.length - 1, Math.max(0, s.row + dRow));
    const target = s.lines[row] ?? '';
    return { ...s, row, col: snapToGrapheme(target, Math.min(s.col, target.length)) };
  }
  const line = lineOf(s);
  if (dCol < 0) {
    if (s.col > 0) return { ...s, col: previousGrapheme(line, s.col) };
    if (s.row === 0) return s;
    return { ...s, row: s.row - 1, col: (s.lines[s.row - 1] ?? '').length };
  }
  if (s.col < line.length) return { ...s, col: nextGrapheme(line, s.col) };
  if (s.row === s.lines.length - 1) return s;
  return { ...s, row: s.row + 1, col: 0 };
}

export const home = (s: EditorState): EditorState => ({ ...s, col: 0 });
export const end = (s: EditorState): EditorState => ({ ...s, col: lineOf(s).length });

/** The state of `text` with the cursor at offset `offset` of it. */
function atOffset(text: string, offset: number): EditorState {
  const lines = text.split('\n');
  const before = text.slice(0, offset).split('\n');
  return { lines, row: before.length - 1, col: (before.at(-1) ?? '').length };
}

/** The text with what lies between offsets `from` and `to` deleted, the cursor at `from`. */
const cut = (s: EditorState, from: number, to: number): EditorState => {
  const text = editorText(s);
  return atOffset(text.slice(0, from) + text.slice(to), from);
};

/*
 * Word motions and deletions as IPython's (prompt_toolkit's): a word is a run of a name's
 * characters or a run of other characters but space, found over the whole cell (see graphemes.ts).
 */

/** Alt-B, Ctrl-Left: to the start of the word before the cursor (across lines). */
export function wordLeft(s: EditorState): EditorState {
  const text = editorText(s);
  const to = previousWordStart(text, cursorOffset(s));
  return to === undefined ? s : atOffset(text, to);
}

/** Alt-F, Ctrl-Right: to the end of the word after the cursor (across lines). */
export function wordRight(s: EditorState): EditorState {
  const text = editorText(s);
  const to = nextWordEnd(text, cursorOffset(s));
  return to === undefined ? s : atOffset(text, to);
}

/** Ctrl-U: delete from the start of the line to the cursor (at the start, the line break before it). */
export function killToStart(s: EditorState): EditorState {
  if (s.col === 0) return backspace(s);
  return replaceLine(s, lineOf(s).slice(s.col), 0);
}

/** Ctrl-K: delete from the cursor to the end of the line (at the end, the line break after it). */
export function killToEnd(s: EditorState): EditorState {
  if (s.col === lineOf(s).length) return deleteForward(s);
  return replaceLine(s, lineOf(s).slice(0, s.col), s.col);
}

/**
 * Ctrl-W: delete back to the previous space, as readline's unix-word-rubout and IPython's (over a
 * line break too); with only space before the cursor, all of it.
 */
export function deleteToSpace(s: EditorState): EditorState {
  const at = cursorOffset(s);
  return cut(s, previousWordStart(editorText(s), at, true) ?? 0, at);
}

/** Alt-Backspace: delete the word before the cursor (with only space before it, all of it). */
export function deleteWord(s: EditorState): EditorState {
  const at = cursorOffset(s);
  return cut(s, previousWordStart(editorText(s), at) ?? 0, at);
}

/** Alt-D: delete to the end of the word after the cursor (as Alt-F moves). */
export function deleteWordForward(s: EditorState): EditorState {
  const at = cursorOffset(s);
  const to = nextWordEnd(editorText(s), at);
  return to === undefined ? s : cut(s, at, to);
}

/**
 * Ctrl-T: as prompt_toolkit's transpose-chars (IPython's), by grapheme: at the end of a line the
 * two characters before the cursor swap; elsewhere the cursor moves right and the two characters
 * before it swap (the one before the cursor goes after the one under it). At the start, nothing.
 */
export function transpose(s: EditorState): EditorState {
  const text = editorText(s);
  let at = cursorOffset(s);
  if (at === 0) return s;
  if (at < text.length && text[at] !== '\n') at = nextGrapheme(text, at);
  const second = previousGrapheme(text, at);
  const first = previousGrapheme(text, second);
  if (first === second) return atOffset(text, at);
  return atOffset(
    text.slice(0, first) + text.slice(second, at) + text.slice(first, second) + text.slice(at),
    at,
  );
}

/** Replaces the text between two offsets of the cursor's line (a completion), cursor after it. */
export function replaceRange(s: EditorState, from: number, to: number, text: string): EditorState {
  const line = lineOf(s);
  const clean = wellFormed(text);
  return replaceLine(s, line.slice(0, from) + clean + line.slice(to), from + clean.length);
}
