/**
 * The live region's arithmetic, in one pure function. Everything below the printed transcript
 * (the running cell, queued cells, the prompt or input line, the completion menu, the status
 * line) must stay shorter than the terminal: when Ink's frame reaches the terminal's height, Ink
 * clears the whole screen and scroll-back on every frame.
 */
import { columnsOf } from '../text/graphemes.js';

/** Queued cells listed by name; more are counted on one extra row. */
const QUEUED_SHOWN = 3;
/** Rows of the completion menu at most. */
const MENU_ROWS = 6;

export interface LiveInput {
  rows: number;
  columns: number;
  /** Lines in the editor (each drawn on one row; long ones scroll sideways). */
  editorLines: number;
  /** input() or Ctrl-R search replaces the editor with one row. */
  singleLinePrompt: boolean;
  queued: number;
  running: boolean;
  /** Choices in the completion menu (0: closed). */
  menuItems: number;
  /** The status line's text: it wraps when longer than the terminal. */
  statusText: string;
}

export interface LiveLayout {
  /** Rows the running cell may use (header, code and output). */
  runningRows: number;
  editorRows: number;
  queuedShown: number;
  queuedRows: number;
  menuRows: number;
  statusRows: number;
  /** The whole live region. */
  total: number;
}

/** Rows a text takes when wrapped at `columns`. */
export function wrappedRows(text: string, columns: number): number {
  return text
    .split('\n')
    .reduce((n, line) => n + Math.max(1, Math.ceil(columnsOf(line) / Math.max(1, columns))), 0);
}

export function liveLayout(input: LiveInput): LiveLayout {
  // One row stays free: a frame as tall as the terminal makes Ink repaint everything. And a third
  // of the rows stays free for a resize: a terminal that is narrowed rewraps the frame's long
  // lines, and rows that it then pushes above the screen can no longer be erased.
  let left = Math.max(3, input.rows - 1 - Math.floor(input.rows / 3));
  const take = (want: number) => {
    const got = Math.max(0, Math.min(want, left));
    left -= got;
    return got;
  };
  // What must be there first (status, one editor row, two rows of a running cell), then the rest.
  const statusRows = take(Math.min(2, wrappedRows(input.statusText, input.columns)));
  let editorRows = take(1);
  let runningRows = input.running ? take(2) : 0;
  const wantedQueued = Math.min(input.queued, QUEUED_SHOWN) + (input.queued > QUEUED_SHOWN ? 1 : 0);
  const queuedRows = take(wantedQueued);
  // Without room for all, the last row counts the rest ("… n more queued").
  const queuedShown =
    queuedRows < wantedQueued ? Math.max(0, queuedRows - 1) : Math.min(input.queued, QUEUED_SHOWN);
  const menuRows = take(Math.min(input.menuItems, MENU_ROWS));
  if (!input.singleLinePrompt) {
    // A long paste gets at most half of what is left; the running cell the rest.
    editorRows += take(Math.min(input.editorLines - 1, Math.floor(left / (input.running ? 2 : 1))));
  }
  if (input.running) runningRows += take(left);
  return {
    runningRows,
    editorRows,
    queuedShown,
    queuedRows,
    menuRows,
    statusRows,
    total: runningRows + editorRows + queuedRows + menuRows + statusRows,
  };
}
