/** The prompt: the editor's lines with IPython's `In [n]:` and `...:` prefixes and a cursor. */

import type { ReactNode } from 'react';
import { cellLanguage, type Language } from '../../eval/index.js';
import { Box, Text } from '../ink.js';
import type { EditorState } from '../keys/editor.js';
import { highlightCode } from '../rendering/highlight.js';
import {
  columnsOf,
  drawnCells,
  expandTabs,
  graphemeCells,
  lineHead,
  reach,
  snapOut,
} from '../text/graphemes.js';

export interface EditorProps {
  editor: EditorState;
  counter: number;
  color: boolean;
  /** At most this many rows: a long paste shows a window around the cursor. */
  maxRows: number;
  /** The terminal's width: a line longer than it scrolls sideways to keep the cursor in view. */
  columns: number;
  /** Ctrl-R search in progress. */
  search?: { query: string; match?: string; failed?: boolean };
  /** The notebook's default language (a `%%js` / `%%py` first line overrides it). */
  language?: Language;
  /** The language of the remote kernel Python cells run on (`R`): how they are highlighted. */
  remoteLanguage?: string;
}

/** The first line of the window of `size` lines that keeps `row` in view. */
function windowStart(total: number, row: number, size: number): number {
  if (total <= size) return 0;
  return Math.min(Math.max(0, row - size + 1), total - size);
}

/**
 * The part of a line that fits in `width` columns around the cursor (a UTF-16 offset at a
 * grapheme boundary), split at the cursor, with `…` where it is cut. Widths are terminal columns:
 * wide characters count two, a tab up to the next tab stop.
 */
export function cursorWindow(
  whole: string,
  col: number,
  width: number,
): { before: string; at: string; after: string } {
  // Only the part of the line that can be in view is measured: a line of megabytes (a pasted
  // literal) is not segmented on every key. A part cut from the middle of a line starts with `…`
  // anyway, so a tab's stop counted from there instead of the line's start shows nothing wrong.
  const shift = snapOut(whole, Math.max(0, col - reach(width)));
  const to = Math.min(whole.length, col + reach(width));
  const cut = to < whole.length;
  const line = shift > 0 || cut ? whole.slice(shift, snapOut(whole, to) === to ? to : to - 1) : whole;
  const cells = drawnCells(line);
  const cursor = cells.findIndex((c) => c.offset >= col - shift);
  const at = cursor === -1 ? cells.length : cursor;
  const total = cells.reduce((n, c) => n + c.width, 0);
  let start = 0;
  let end = cells.length;
  if (total + 1 > width) {
    // Keep the cursor about two thirds along the window.
    const room = Math.max(4, width - 2);
    let used = 0;
    start = at;
    while (start > 0 && used + (cells[start - 1]?.width ?? 1) <= Math.floor(room * 0.7)) {
      start--;
      used += cells[start]?.width ?? 1;
    }
    end = at;
    used += cells[at]?.width ?? 1;
    while (end < cells.length && used + (cells[end]?.width ?? 1) <= room) {
      used += cells[end]?.width ?? 1;
      end++;
    }
  }
  const join = (from: number, to: number) =>
    cells
      .slice(from, to)
      .map((c) => c.text)
      .join('');
  return {
    before: `${start > 0 || shift > 0 ? '…' : ''}${join(start, at)}`,
    at: cells[at]?.text ?? ' ',
    after: `${join(at + 1, Math.max(at + 1, end))}${end < cells.length || cut ? '…' : ''}`,
  };
}

export function Editor({
  editor,
  counter,
  color,
  maxRows,
  columns,
  search,
  language: fallback = 'py',
  remoteLanguage,
}: EditorProps): ReactNode {
  const cell = cellLanguage(editor.lines[0] ?? '', fallback).language;
  const language = cell === 'py' && remoteLanguage ? remoteLanguage : cell;
  const prompt = `In [${counter}]: `;
  const more = `${' '.repeat(Math.max(0, prompt.length - 5))}...: `;
  if (search) {
    return (
      <Text wrap="truncate-end">
        <Text color="cyan">
          ({search.failed ? 'failed ' : ''}reverse-i-search)`{search.query}':{' '}
        </Text>
        {search.match ?? ''}
      </Text>
    );
  }
  const size = Math.max(1, maxRows);
  const clipped = editor.lines.length > size;
  // One row of the window is spent on the note of what is out of view.
  const visible = clipped ? size - 1 : size;
  const start = windowStart(editor.lines.length, editor.row, visible);
  const lines = editor.lines.slice(start, start + visible);
  return (
    <Box flexDirection="column">
      {lines.map((line, i) => {
        const row = start + i;
        const view =
          row === editor.row
            ? cursorWindow(line, editor.col, Math.max(10, columns - prompt.length - 1))
            : undefined;
        return (
          <Text key={row} wrap="truncate-end">
            <Text color="green">{row === 0 ? prompt : more}</Text>
            {view ? (
              <>
                {view.before}
                <Text inverse>{view.at}</Text>
                {view.after}
              </>
            ) : (
              highlightCode(expandTabs(lineHead(line, columns)), color, language)
            )}
          </Text>
        );
      })}
      {clipped ? (
        <Text dimColor wrap="truncate-end">
          {`${more}… ${editor.lines.length} lines (${start} above, ${editor.lines.length - start - lines.length} below)`}
        </Text>
      ) : null}
    </Box>
  );
}

/** `prompt`, or `…` and its last columns when it is wider than `width`. */
function promptTail(prompt: string, width: number): string {
  if (columnsOf(prompt) <= width) return prompt;
  const cells = drawnCells(prompt);
  let used = 1;
  let start = cells.length;
  while (start > 0 && used + (cells[start - 1]?.width ?? 1) <= width) used += cells[--start]?.width ?? 1;
  return `…${cells
    .slice(start)
    .map((c) => c.text)
    .join('')}`;
}

/** Columns an input() answer keeps beside a long prompt. */
const ANSWER_COLUMNS = 12;

/** input() waiting in the running cell: its prompt and what is typed (hidden for getpass). */
export function InputLine({
  prompt,
  value,
  password,
  columns,
}: {
  prompt: string;
  value: EditorState;
  password: boolean;
  columns: number;
}): ReactNode {
  const line = value.lines[0] ?? '';
  // A password shows one dot per character typed, whatever its width.
  const masked = password
    ? graphemeCells(line)
        .map(() => '•')
        .join('')
    : line;
  const col = password ? graphemeCells(line.slice(0, value.col)).length : value.col;
  // The prompt whole, as a terminal shows it, with at least ANSWER_COLUMNS left for the answer
  // (which scrolls there); only a prompt wider than that keeps just its end.
  const shown = promptTail(prompt, Math.max(4, columns - ANSWER_COLUMNS - 1));
  const view = cursorWindow(masked, col, Math.max(4, columns - columnsOf(shown) - 1));
  return (
    <Text wrap="truncate-end">
      <Text color="cyan">{shown}</Text>
      {view.before}
      <Text inverse>{view.at}</Text>
      {view.after}
    </Text>
  );
}

/** The completion menu under the prompt: a window of choices around the selected one. */
export function CompletionMenu({
  items,
  index,
  rows,
}: {
  items: readonly string[];
  index: number;
  rows: number;
}): ReactNode {
  const start = windowStart(items.length, Math.max(0, index), rows);
  return (
    <Box flexDirection="column">
      {items.slice(start, start + rows).map((item, i) => (
        <Text key={item} wrap="truncate-end" inverse={start + i === index} color="cyan">
          {`  ${item} `}
          {i === rows - 1 && start + rows < items.length ? (
            <Text dimColor>{` (${items.length} in all)`}</Text>
          ) : null}
        </Text>
      ))}
    </Box>
  );
}
