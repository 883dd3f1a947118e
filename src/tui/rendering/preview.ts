/**
 * What a finished cell's output looks like on screen: collapsed to its first and last lines (so a
 * table keeps its header and a help text its signature), or all of what was kept. Pure functions,
 * applied before React sees the data.
 */
import { type Output, type Row, rowsOf } from '../state/output.js';
import { columnBlocks, tailStart } from './columnBlocks.js';

const PREVIEW_HEAD = 5;
const PREVIEW_TAIL = 15;
/** An agent's cell (a followed MCP session) collapses to 10 lines, as the tool renderer's preview. */
export const AGENT_PREVIEW = { head: 3, tail: 7 };
const MAX_LINE_CHARS = 4000;

/** A line cut to MAX_LINE_CHARS characters, and how many of its characters are left out (`cut`: before). */
export function clampLine(line: string, cut = 0): { kept: string; omitted: number } {
  const omitted = Math.max(0, line.length - MAX_LINE_CHARS) + cut;
  return { kept: omitted ? line.slice(0, MAX_LINE_CHARS) : line, omitted };
}

/**
 * A row to show, or the place of rows that are not shown: `kept` when Ctrl-O can show them, and
 * `showable`, when only some of them were kept, how many.
 */
export type PreviewItem = { row: Row } | { hidden: number; kept: boolean; showable?: number };

/**
 * The rows of an output to show: collapsed, the first `head` and the last `tail` (PREVIEW_HEAD
 * and PREVIEW_TAIL unless given) with the number of rows between; expanded, every kept row with
 * the number not kept.
 */
export function previewItems(
  output: Output,
  expanded: boolean,
  { head, tail } = { head: PREVIEW_HEAD, tail: PREVIEW_TAIL },
): PreviewItem[] {
  const rows = rowsOf(output);
  const total = rows.length + output.omitted;
  const limit = head + tail;
  if (expanded || total <= limit) {
    const items: PreviewItem[] = output.head.map((row) => ({ row }));
    if (output.omitted) items.push({ hidden: output.omitted, kept: false });
    for (const row of output.tail) items.push({ row });
    return items;
  }
  // A tail that starts among a wrapped table's rows shows their block's header above them.
  const { from, header } = blockTail(output, rows, head, tail);
  const headerRows = header ? rows.slice(header.start, header.headerEnd) : [];
  const shown = head + headerRows.length + rows.length - from;
  if (shown >= total) return rows.map((row) => ({ row })); // (the block's header took the gap)
  return [
    ...rows.slice(0, head).map((row) => ({ row })),
    { hidden: total - shown, kept: true, ...(output.omitted ? { showable: rows.length - shown } : {}) },
    ...headerRows.map((row) => ({ row })),
    ...rows.slice(from).map((row) => ({ row })),
  ];
}

/**
 * Where the collapsed tail starts in `rows`, and the column block whose header goes above it
 * (columnBlocks.ts). With rows left out, only the kept tail is looked at (it follows the gap).
 */
function blockTail(output: Output, rows: readonly Row[], head: number, tail: number) {
  const offset = output.omitted ? output.head.length : 0;
  const lines = rows.slice(offset).map((row) => (row.kind === 'text' ? row.text : '\u0000image'));
  const at = tailStart(columnBlocks(lines), lines.length, Math.max(0, head - offset), tail);
  const header = at.header && {
    start: at.header.start + offset,
    headerEnd: at.header.headerEnd + offset,
    end: at.header.end + offset,
  };
  return { from: at.from + offset, ...(header ? { header } : {}) };
}

export function hiddenLabel(hidden: number, kept: boolean, showable?: number): string {
  const lines = `${hidden} more line${hidden === 1 ? '' : 's'}`;
  if (!kept) return `… ${hidden} line${hidden === 1 ? '' : 's'} not kept …`;
  return showable === undefined
    ? `… ${lines} (ctrl+o shows them)`
    : `… ${lines} (ctrl+o shows ${showable} of them)`;
}
