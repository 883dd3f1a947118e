/**
 * What a cell's output looks like on screen: long lines clamped, long outputs collapsed to their
 * last lines. Pure functions, applied before React sees the data.
 */
export const PREVIEW_LINES = 20;
export const MAX_LINE_CHARS = 4000;

/** A line cut to `max` characters, with a note of how many were left out. */
export function clampLine(line: string, max = MAX_LINE_CHARS): string {
  if (line.length <= max) return line;
  return `${line.slice(0, max)}… [${line.length - max} chars omitted]`;
}

export interface Preview {
  lines: string[];
  /** Lines left out above the preview (0 when everything is shown). */
  hidden: number;
}

/** The last `limit` items (all of them when expanded), and how many were left out. */
export function tail<T>(
  items: readonly T[],
  expanded: boolean,
  limit = PREVIEW_LINES,
): { items: T[]; hidden: number } {
  const shown = expanded || items.length <= limit ? items.slice() : items.slice(items.length - limit);
  return { items: shown, hidden: items.length - shown.length };
}

/** The last `limit` lines (all of them when expanded), each clamped. */
export function preview(lines: readonly string[], expanded: boolean, limit = PREVIEW_LINES): Preview {
  const { items, hidden } = tail(lines, expanded, limit);
  return { lines: items.map((l) => clampLine(l)), hidden };
}

export function hiddenLabel(hidden: number): string {
  return `… ${hidden} more line${hidden === 1 ? '' : 's'} (ctrl+o to expand)`;
}
