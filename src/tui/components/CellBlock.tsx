/**
 * One code cell: a header with the execution counter, status and elapsed time, the highlighted
 * code, and the output: collapsed to its first and last lines when printed, everything kept when
 * expanded (Ctrl-O), and in the live region what fits in its rows.
 */

import type { ReactNode } from 'react';
import { highlightCode } from '../../render/highlight.js';
import { Box, Text } from '../ink.js';
import { expandTabs } from '../lib/graphemes.js';
import { hiddenLabel, type PreviewItem, previewItems } from '../lib/preview.js';
import { type Row, rowsOf, spillNote, type TextRow } from '../state/output.js';
import type { CellStatus, CellView } from '../state/reducer.js';
import { isPlainRow, lineOrSpace, OutputRow, OutputRows } from './OutputRow.js';

export const STATUS: Record<CellStatus, { glyph: string; label: string; color: string }> = {
  queued: { glyph: '○', label: 'queued', color: 'gray' },
  running: { glyph: '●', label: 'running', color: 'yellow' },
  ok: { glyph: '✓', label: 'ok', color: 'green' },
  error: { glyph: '✗', label: 'error', color: 'red' },
  cancelled: { glyph: '⊘', label: 'cancelled', color: 'yellow' },
  'timed-out': { glyph: '⏱', label: 'timed out', color: 'red' },
  killed: { glyph: '☠', label: 'kernel killed', color: 'red' },
  skipped: { glyph: '·', label: 'skipped', color: 'gray' },
};

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export interface CellBlockProps {
  cell: CellView;
  color: boolean;
  /** For the live region: at most this many rows in all, one terminal row each. */
  maxRows?: number;
  /** Show every kept row (Ctrl-O). */
  expanded?: boolean;
  now?: number;
  /** The count a running cell will get (its results say Out[n]). */
  count?: number;
}

function rowHeight(row: Row): number {
  return row.kind === 'image' && row.ansi ? row.ansi.split('\n').length : 1;
}

/** The last rows of the output that fit in `budget` rows, and how many are left out above. */
function liveItems(rows: Row[], omitted: number, budget: number): PreviewItem[] {
  const shown: PreviewItem[] = [];
  let left = budget - 1; // one row for the note of what is above
  for (let i = rows.length - 1; i >= 0; i--) {
    const height = rowHeight(rows[i] as Row);
    if (height > left) break;
    left -= height;
    shown.unshift({ row: rows[i] as Row });
  }
  const hidden = rows.length - shown.length + omitted;
  if (!hidden && shown.length < budget) return shown;
  return hidden ? [{ hidden, kept: true }, ...shown] : shown;
}

function Header({ cell, now }: { cell: CellView; now?: number }): ReactNode {
  const status = STATUS[cell.status];
  const elapsed =
    cell.durationMs !== undefined
      ? formatElapsed(cell.durationMs)
      : cell.startedAt !== undefined && now !== undefined
        ? formatElapsed(Math.max(0, now - cell.startedAt))
        : '';
  const glyph =
    cell.status === 'running' && now !== undefined
      ? (SPINNER[Math.floor(now / 80) % SPINNER.length] as string)
      : status.glyph;
  const counter =
    cell.executionCount !== undefined
      ? `[${cell.executionCount}]`
      : cell.status === 'running'
        ? '[*]'
        : '[ ]';
  return (
    <Text wrap="truncate-end">
      <Text color={status.color}>{glyph}</Text>
      <Text bold> {counter}</Text>
      {cell.title ? <Text> {cell.title}</Text> : null}
      <Text color={status.color}> {status.label}</Text>
      {elapsed ? <Text dimColor> · {elapsed}</Text> : null}
    </Text>
  );
}

/**
 * The items of a printed cell: each run of plain text rows of one stream as one unit (OutputRows),
 * the rest as they are; `firstResult` may carry an Out[n] label and stays alone. (Live, each row
 * stays a Text of its own: Ink cuts a text too wide for its box as one, not line by line.)
 */
function groupRows(items: readonly PreviewItem[], firstResult: PreviewItem | undefined) {
  const units: (PreviewItem | TextRow[])[] = [];
  let run: TextRow[] | undefined;
  for (const item of items) {
    const row = 'row' in item && item !== firstResult && isPlainRow(item.row) ? item.row : undefined;
    if (row && run && (run[0] as TextRow).stream === row.stream) run.push(row);
    else if (row) {
      run = [row];
      units.push(run);
    } else {
      run = undefined;
      units.push(item);
    }
  }
  return units;
}

export function CellBlock({ cell, color, maxRows, expanded = false, now, count }: CellBlockProps): ReactNode {
  const live = maxRows !== undefined;
  if (cell.kind === 'info') {
    // The notebook's own messages (help, restarts, background output): just the text.
    return (
      <Box flexDirection="column">
        {rowsOf(cell.output).map((row, i) => (
          <OutputRow key={`i${i}`} row={row} live={false} />
        ))}
      </Box>
    );
  }
  let codeLines = highlightCode(expandTabs(cell.code), color, cell.highlight ?? cell.language).split('\n');
  const note = spillNote(cell.output);
  let items: PreviewItem[];
  if (live) {
    // Header, code and output must fit in maxRows terminal rows.
    const codeBudget = Math.max(1, Math.min(codeLines.length, Math.floor((maxRows - 1) / 3)));
    if (codeLines.length > codeBudget) {
      codeLines = [
        ...codeLines.slice(0, codeBudget - 1),
        `… ${codeLines.length - codeBudget + 1} more code lines`,
      ];
    }
    items = liveItems(rowsOf(cell.output), cell.output.omitted, Math.max(0, maxRows - 1 - codeLines.length));
  } else items = previewItems(cell.output, expanded);
  const label = cell.executionCount ?? count;
  const results = items.filter((i) => 'row' in i && i.row.kind === 'text' && i.row.stream === 'result');
  const firstResult = results[0];
  // A result of several rows (a table, a long repr) starts under its Out[n]: label, as in IPython.
  const outOnOwnLine = results.length > 1 && label !== undefined;
  return (
    <Box flexDirection="column">
      <Header cell={cell} {...(now !== undefined ? { now } : {})} />
      {live ? (
        codeLines.map((line, i) => (
          <Text key={`c${i}`} wrap="truncate-end">
            <Text dimColor>│ </Text>
            {line}
          </Text>
        ))
      ) : (
        // A code line that wraps keeps the gutter on its every row: the gutter is the box's border.
        <Box
          flexDirection="column"
          borderStyle="single"
          borderTop={false}
          borderRight={false}
          borderBottom={false}
          borderDimColor
          paddingLeft={1}
        >
          {/* (One Text, a line a code line: Ink wraps each line on its own.) */}
          <Text wrap="wrap">{codeLines.map(lineOrSpace).join('\n')}</Text>
        </Box>
      )}
      {(live ? items : groupRows(items, firstResult)).map((unit, i) =>
        Array.isArray(unit) ? (
          <OutputRows key={`o${i}`} rows={unit} />
        ) : 'row' in unit ? (
          <Box key={`o${i}`} flexDirection="column">
            {outOnOwnLine && unit === firstResult ? <Text color="red">Out[{label}]:</Text> : null}
            <OutputRow
              row={unit.row}
              live={live}
              {...(unit === firstResult && !outOnOwnLine && label !== undefined ? { outLabel: label } : {})}
            />
          </Box>
        ) : (
          <Text key={`o${i}`} dimColor wrap="truncate-end">
            {live ? `… ${unit.hidden} earlier lines` : hiddenLabel(unit.hidden, unit.kept, unit.showable)}
          </Text>
        ),
      )}
      {note && !live ? (
        <Text color="yellow" wrap="wrap">
          {note}
        </Text>
      ) : null}
    </Box>
  );
}

/** A queued cell on one row: its title or first code line. */
export function QueuedLine({ cell }: { cell: CellView }): ReactNode {
  const first = cell.code.split('\n')[0] ?? '';
  return (
    <Text wrap="truncate-end">
      <Text color="gray">○ [ ]</Text>
      {cell.title ? <Text> {cell.title}</Text> : null}
      <Text color="gray"> queued</Text>
      <Text dimColor> │ {first}</Text>
    </Text>
  );
}
