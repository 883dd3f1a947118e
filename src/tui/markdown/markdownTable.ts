/**
 * GFM tables as boxes drawn with line characters. A table wider than the terminal is split into
 * blocks of columns that repeat the first (index) column, as pandas prints a wide frame, and its
 * cells are wrapped. Only the header has a rule under it: 60 rows stay 60 lines.
 */
import type { Tokens } from 'marked';
import { renderInline, type Styles } from './markdownInline.js';
import { balance, columns, reflow, truncate } from './reflow.js';

const MIN_COLUMN = 8;

/**
 * Which columns go into which table, and their widths (undefined: the natural ones). `natural` are
 * the columns' widths with padding; a table is `sum + columns + 1` wide with its borders.
 */
export function planColumns(natural: number[], width: number): { columns: number[]; widths?: number[] }[] {
  const n = natural.length;
  const total = natural.reduce((a, b) => a + b, 0) + n + 1;
  if (total <= width || n === 0) return [{ columns: natural.map((_, i) => i) }];
  const cap = Math.max(MIN_COLUMN, Math.floor((width - 1) / 2) - 1);
  const capped = natural.map((w) => Math.min(w, cap));
  const first = capped[0] ?? 0;
  const keep = n > 2 && first + 1 <= Math.floor(width / 3); // repeat the index column in each block
  const blocks: { columns: number[]; widths?: number[] }[] = [];
  let picked: number[] = keep ? [0] : [];
  let used = 1 + (keep ? first + 1 : 0);
  for (let i = keep ? 1 : 0; i < n; i++) {
    const need = (capped[i] ?? 0) + 1;
    if (used + need > width && picked.length > (keep ? 1 : 0)) {
      blocks.push({ columns: picked });
      picked = keep ? [0] : [];
      used = 1 + (keep ? first + 1 : 0);
    }
    picked.push(i);
    used += need;
  }
  blocks.push({ columns: picked });
  for (const block of blocks) {
    const widths = block.columns.map((i) => capped[i] ?? MIN_COLUMN);
    const over = widths.reduce((a, b) => a + b, 0) + widths.length + 1 - width;
    if (over > 0) {
      const last = widths.length - 1;
      widths[last] = Math.max(MIN_COLUMN, (widths[last] ?? MIN_COLUMN) - over);
    }
    block.widths = widths;
  }
  return blocks;
}

type Align = 'left' | 'right' | 'center' | null;

/** `text` (one line) padded to `width` columns as the column is aligned. */
function pad(text: string, width: number, align: Align): string {
  const room = Math.max(0, width - columns(text));
  if (align === 'right') return ' '.repeat(room) + text;
  if (align === 'center') {
    const left = Math.floor(room / 2);
    return ' '.repeat(left) + text + ' '.repeat(room - left);
  }
  return text + ' '.repeat(room);
}

/** A cell's lines inside `inner` columns: wrapped when its column was narrowed, else as written. */
function cellLines(text: string, inner: number, wrap: boolean): string[] {
  const lines = wrap ? reflow(text, inner) : text.split('\n');
  return balance(lines.length > 0 ? lines.map((line) => truncate(line, inner)) : ['']);
}

/** The table as lines: one box, or several boxes (blocks of columns) with an empty line between. */
export function renderTable(token: Tokens.Table, width: number, s: Styles): string[] {
  const header = token.header.map((cell) => renderInline(cell.tokens, s));
  const rows = token.rows.map((row) => row.map((cell) => renderInline(cell.tokens, s)));
  const widest = header.map((_, i) =>
    Math.max(
      0,
      ...[header, ...rows].map((row) => Math.max(0, ...(row[i] ?? '').split('\n').map((l) => columns(l)))),
    ),
  );
  const natural = widest.map((w) => Math.max(1, w) + 2);
  const border = (line: string) => s.tableBorder(line);
  const out: string[] = [];
  for (const block of planColumns(natural, width)) {
    const widths = block.widths ?? block.columns.map((i) => (widest[i] ?? 0) + 2);
    const rule = (left: string, mid: string, right: string) =>
      border(left + widths.map((w) => '─'.repeat(w)).join(mid) + right);
    const draw = (cells: string[], head: boolean) => {
      const lines = block.columns.map((i, k) =>
        cellLines(cells[i] ?? '', (widths[k] ?? 2) - 2, block.widths !== undefined),
      );
      const height = Math.max(...lines.map((l) => l.length));
      for (let y = 0; y < height; y++) {
        const shown = block.columns.map((i, k) => {
          const text = ` ${pad(lines[k]?.[y] ?? '', (widths[k] ?? 2) - 2, token.align[i] ?? null)} `;
          return head ? s.tableHead(text) : text;
        });
        out.push(border('│') + shown.join(border('│')) + border('│'));
      }
    };
    if (out.length > 0) out.push('');
    out.push(rule('┌', '┬', '┐'));
    draw(header, true);
    if (rows.length > 0) out.push(rule('├', '┼', '┤'));
    for (const row of rows) draw(row, false);
    out.push(rule('└', '┴', '┘'));
  }
  return out;
}
