/**
 * One code cell: a header with the execution counter, status and elapsed time, the highlighted
 * code, and in the live region the output that fits in its rows. Printed, the block is the header
 * and the code; the output follows it as lines of text (rendering/rowText.ts, rendering/printer.tsx).
 */

import { type ReactNode, useMemo } from 'react';
import { Box, Text } from '../ink.js';
import { highlightCode } from '../rendering/highlight.js';
import type { PreviewItem } from '../rendering/preview.js';
import { outLabels } from '../rendering/rowText.js';
import { type Row, rowsOf } from '../state/output.js';
import type { CellStatus, CellView, Party } from '../state/reducer.js';
import { expandTabs, lineHead } from '../text/graphemes.js';
import { lineOrSpace, OutputRow } from './OutputRow.js';

const STATUS: Record<CellStatus, { glyph: string; label: string; color: string }> = {
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

function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export interface CellBlockProps {
  cell: CellView;
  color: boolean;
  /** For the live region: at most this many rows in all, one terminal row each (else printed). */
  maxRows?: number;
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

/** A run of the header's text and its style (a <Text> of the header, or chalk when printed directly). */
export interface HeaderPart {
  text: string;
  color?: string;
  bold?: boolean;
  dim?: boolean;
}

/** The header's parts: status glyph, counter, party, title, status and elapsed time. */
export function headerParts(cell: CellView, now?: number): HeaderPart[] {
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
  const parts: HeaderPart[] = [
    { text: glyph, color: status.color },
    { text: ` ${counter}`, bold: true },
  ];
  if (cell.party) parts.push({ text: ` ${partyLabel(cell.party)}`, color: 'magenta' });
  if (cell.title) parts.push({ text: ` ${cell.title}` });
  parts.push({ text: ` ${status.label}`, color: status.color });
  if (elapsed) parts.push({ text: ` · ${elapsed}`, dim: true });
  return parts;
}

function Header({ cell, now }: { cell: CellView; now?: number }): ReactNode {
  return (
    <Text wrap="truncate-end">
      {headerParts(cell, now).map((part, i) => (
        <Text
          key={i}
          {...(part.color ? { color: part.color } : {})}
          bold={part.bold === true}
          dimColor={part.dim === true}
        >
          {part.text}
        </Text>
      ))}
    </Text>
  );
}

/** Who ran the cell, for its header: `agent #3 1/2` (the call's number, the cell's place in it). */
export function partyLabel(party: Party): string {
  return `${party.by} #${party.call}${party.cells > 1 ? ` ${party.cell + 1}/${party.cells}` : ''}`;
}

/** Lines in `text`. */
export function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** The first `n` lines of `text`. */
export function firstLines(text: string, n: number): string {
  let end = -1;
  for (let i = 0; i < n; i++) {
    end = text.indexOf('\n', end + 1);
    if (end === -1) return text;
  }
  return text.slice(0, Math.max(0, end));
}

/** Columns of a live code line that are drawn at most (Ink cuts it at the terminal's edge). */
const LIVE_LINE_COLUMNS = 1000;

export function CellBlock({ cell, color, maxRows, now, count }: CellBlockProps): ReactNode {
  // (The notebook's messages, info cells, are never live: they are printed at once, rendering/rowText.ts.)
  const live = maxRows !== undefined;
  // The running cell draws on every tick: its code is counted once, and only the lines it shows
  // are highlighted (a pasted cell can have a million).
  const total = useMemo(() => (live ? countLines(cell.code) : 0), [live, cell.code]);
  const language = cell.highlight ?? cell.language;
  if (!live) {
    const codeLines = highlightCode(expandTabs(cell.code), color, language).split('\n');
    // Printed: the header and the code; the output follows as lines of text (rendering/printer.tsx).
    // A code line that wraps keeps the gutter on its every row: the gutter is the box's border.
    return (
      <Box flexDirection="column">
        <Header cell={cell} />
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
      </Box>
    );
  }
  // Header, code and output must fit in maxRows terminal rows.
  const codeBudget = Math.max(1, Math.min(total, Math.floor((maxRows - 1) / 3)));
  const shown = total > codeBudget ? codeBudget - 1 : codeBudget;
  const head = firstLines(cell.code, shown)
    .split('\n')
    .map((line) => lineHead(line, LIVE_LINE_COLUMNS))
    .join('\n');
  const codeLines = shown ? highlightCode(expandTabs(head), color, language).split('\n') : [];
  if (total > codeBudget) codeLines.push(`… ${total - codeBudget + 1} more code lines`);
  const items = liveItems(
    rowsOf(cell.output),
    cell.output.omitted,
    Math.max(0, maxRows - 1 - codeLines.length),
  );
  const label = cell.executionCount ?? count;
  const { first, ownLine } = outLabels(items, label);
  return (
    <Box flexDirection="column">
      <Header cell={cell} {...(now !== undefined ? { now } : {})} />
      {codeLines.map((line, i) => (
        <Text key={`c${i}`} wrap="truncate-end">
          <Text dimColor>│ </Text>
          {line}
        </Text>
      ))}
      {items.map((item, i) =>
        'row' in item ? (
          <Box key={`o${i}`} flexDirection="column">
            {ownLine && item === first ? <Text color="red">Out[{label}]:</Text> : null}
            <OutputRow
              row={item.row}
              {...(item === first && !ownLine && label !== undefined ? { outLabel: label } : {})}
            />
          </Box>
        ) : (
          <Text key={`o${i}`} dimColor wrap="truncate-end">
            … {item.hidden} earlier lines
          </Text>
        ),
      )}
    </Box>
  );
}

/** A queued cell on one row: its title or first code line. */
export function QueuedLine({ cell }: { cell: CellView }): ReactNode {
  const first = lineHead(firstLines(cell.code, 1), LIVE_LINE_COLUMNS);
  return (
    <Text wrap="truncate-end">
      <Text color="gray">○ [ ]</Text>
      {cell.party ? <Text color="magenta"> {partyLabel(cell.party)}</Text> : null}
      {cell.title ? <Text> {cell.title}</Text> : null}
      <Text color="gray"> queued</Text>
      <Text dimColor> │ {first}</Text>
    </Text>
  );
}
