/** The prompt: the editor's lines with IPython's `In [n]:` and `...:` prefixes and a cursor. */

import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { type CellLanguage, cellLanguage } from '../../eval/index.js';
import type { EditorState } from '../lib/editor.js';
import { highlightCode } from '../lib/highlight.js';

export interface EditorProps {
  editor: EditorState;
  counter: number;
  color: boolean;
  /** At most this many rows: a long paste shows a window around the cursor. */
  maxRows: number;
  /** The terminal's width: a line longer than it scrolls sideways to keep the cursor in view. */
  columns: number;
  /** Ctrl-R search in progress. */
  search?: { query: string; match?: string };
  /** The notebook's default language (a `%%js` / `%%py` first line overrides it). */
  language?: CellLanguage;
}

function withCursor(line: string, col: number): ReactNode {
  const at = line[col] ?? ' ';
  return (
    <>
      {line.slice(0, col)}
      <Text inverse>{at}</Text>
      {line.slice(col + 1)}
    </>
  );
}

/** The first line of the window of `size` lines that keeps `row` in view. */
export function windowStart(total: number, row: number, size: number): number {
  if (total <= size) return 0;
  return Math.min(Math.max(0, row - size + 1), total - size);
}

/** The part of a line that fits in `width` columns and shows column `col`, with `…` where cut. */
export function horizontalWindow(line: string, col: number, width: number): { text: string; col: number } {
  if (line.length < width) return { text: line, col };
  const start = Math.max(0, Math.min(col - Math.floor(width * 0.7), line.length - width + 2));
  const visible = line.slice(start, start + width - 2);
  const left = start > 0 ? '…' : '';
  const right = start + width - 2 < line.length ? '…' : '';
  return { text: `${left}${visible}${right}`, col: col - start + left.length };
}

export function Editor({
  editor,
  counter,
  color,
  maxRows,
  columns,
  search,
  language: fallback = 'py',
}: EditorProps): ReactNode {
  const language = cellLanguage(editor.lines[0] ?? '', fallback).language;
  const prompt = `In [${counter}]: `;
  const more = `${' '.repeat(Math.max(0, prompt.length - 5))}...: `;
  if (search) {
    return (
      <Text wrap="truncate-end">
        <Text color="cyan">(reverse-i-search)`{search.query}': </Text>
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
  const hiddenAbove = start;
  const hiddenBelow = editor.lines.length - start - lines.length;
  return (
    <Box flexDirection="column">
      {lines.map((line, i) => {
        const row = start + i;
        return (
          <Text key={row} wrap="truncate-end">
            <Text color="green">{row === 0 ? prompt : more}</Text>
            {row === editor.row
              ? (() => {
                  const view = horizontalWindow(line, editor.col, Math.max(10, columns - prompt.length - 1));
                  return withCursor(view.text, view.col);
                })()
              : highlightCode(line, color, language)}
          </Text>
        );
      })}
      {clipped ? (
        <Text dimColor wrap="truncate-end">
          {`${more}… ${editor.lines.length} lines (${hiddenAbove} above, ${hiddenBelow} below)`}
        </Text>
      ) : null}
    </Box>
  );
}

/** input() waiting in the running cell: its prompt and what is typed (hidden for getpass). */
export function InputLine({
  prompt,
  value,
  password,
}: {
  prompt: string;
  value: string;
  password: boolean;
}): ReactNode {
  return (
    <Text wrap="truncate-end">
      <Text color="cyan">{prompt}</Text>
      {password ? '•'.repeat(value.length) : value}
      <Text inverse> </Text>
    </Text>
  );
}
