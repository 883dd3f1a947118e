/**
 * The prompt's multi-line editor as a pure state machine: text as lines, a cursor, and the edits
 * the keys make. The component maps key presses to these functions.
 */
import { autoIndent } from '../../eval/index.js';

export interface EditorState {
  lines: string[];
  row: number;
  col: number;
}

export const emptyEditor = (): EditorState => ({ lines: [''], row: 0, col: 0 });

export const editorText = (s: EditorState): string => s.lines.join('\n');

export function fromText(text: string): EditorState {
  const lines = text.split('\n');
  return { lines, row: lines.length - 1, col: (lines.at(-1) ?? '').length };
}

export function insert(s: EditorState, text: string): EditorState {
  const line = s.lines[s.row] ?? '';
  const before = line.slice(0, s.col);
  const after = line.slice(s.col);
  const pieces = text.split('\n');
  const lines = s.lines.slice();
  if (pieces.length === 1) {
    lines[s.row] = before + text + after;
    return { lines, row: s.row, col: s.col + text.length };
  }
  const first = before + pieces[0];
  const last = pieces.at(-1) ?? '';
  lines.splice(s.row, 1, first, ...pieces.slice(1, -1), last + after);
  return { lines, row: s.row + pieces.length - 1, col: last.length };
}

/** A new line at the cursor, indented like the line above (one level more after a `:`). */
export function newline(s: EditorState): EditorState {
  const line = s.lines[s.row] ?? '';
  return insert(s, `\n${autoIndent(line.slice(0, s.col))}`);
}

export function backspace(s: EditorState): EditorState {
  if (s.col > 0) {
    const line = s.lines[s.row] ?? '';
    // Inside leading indentation, remove a whole level.
    const indentOnly = /^\s*$/.test(line.slice(0, s.col));
    const width = indentOnly && s.col % 4 === 0 ? 4 : 1;
    const lines = s.lines.slice();
    lines[s.row] = line.slice(0, s.col - width) + line.slice(s.col);
    return { lines, row: s.row, col: s.col - width };
  }
  if (s.row === 0) return s;
  const lines = s.lines.slice();
  const prev = lines[s.row - 1] ?? '';
  lines.splice(s.row - 1, 2, prev + (lines[s.row] ?? ''));
  return { lines, row: s.row - 1, col: prev.length };
}

export function move(s: EditorState, dRow: number, dCol: number): EditorState {
  if (dRow) {
    const row = Math.min(s.lines.length - 1, Math.max(0, s.row + dRow));
    return { ...s, row, col: Math.min(s.col, (s.lines[row] ?? '').length) };
  }
  let { row, col } = s;
  col += dCol;
  if (col < 0 && row > 0) {
    row--;
    col = (s.lines[row] ?? '').length;
  } else if (col > (s.lines[row] ?? '').length && row < s.lines.length - 1) {
    row++;
    col = 0;
  }
  return { ...s, row, col: Math.min(Math.max(0, col), (s.lines[row] ?? '').length) };
}

export const home = (s: EditorState): EditorState => ({ ...s, col: 0 });
export const end = (s: EditorState): EditorState => ({ ...s, col: (s.lines[s.row] ?? '').length });

/** Ctrl-U: delete from the start of the line to the cursor. */
export function killToStart(s: EditorState): EditorState {
  const lines = s.lines.slice();
  lines[s.row] = (lines[s.row] ?? '').slice(s.col);
  return { lines, row: s.row, col: 0 };
}

/** Ctrl-K: delete from the cursor to the end of the line. */
export function killToEnd(s: EditorState): EditorState {
  const lines = s.lines.slice();
  lines[s.row] = (lines[s.row] ?? '').slice(0, s.col);
  return { ...s, lines };
}

/** Ctrl-W: delete the word before the cursor. */
export function deleteWord(s: EditorState): EditorState {
  const line = s.lines[s.row] ?? '';
  const before = line.slice(0, s.col).replace(/\w+\s*$|\W\s*$/, '');
  const lines = s.lines.slice();
  lines[s.row] = before + line.slice(s.col);
  return { lines, row: s.row, col: before.length };
}
