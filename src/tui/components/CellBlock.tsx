/**
 * One code cell: a header with the execution counter, status and elapsed time, the highlighted
 * code, and the output (the last 20 rows unless expanded; in the live region, what fits).
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { highlightCode } from '../lib/highlight.js';
import { placeholder } from '../lib/images.js';
import { clampLine, hiddenLabel, tail } from '../lib/preview.js';
import { type Row, rowsOf, type Stream } from '../state/output.js';
import type { CellStatus, CellView } from '../state/reducer.js';

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

const STREAM_COLOR: Partial<Record<Stream, string>> = {
  stderr: 'red',
  error: 'red',
  notice: 'yellow',
  status: 'cyan',
};

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export interface CellBlockProps {
  cell: CellView;
  /** For the live region: at most this many rows in all, one terminal row each. */
  maxRows?: number;
  now?: number;
  color: boolean;
  selected?: boolean;
}

function rowHeight(row: Row): number {
  return row.kind === 'image' && row.ansi ? row.ansi.split('\n').length : 1;
}

/**
 * A traceback line, coloured as IPython does: frame headers in green with the cell in cyan,
 * markers (^^^) in red, the exception line in bold red, source lines plain.
 */
function TracebackLine({ text, wrap }: { text: string; wrap: 'wrap' | 'truncate-end' }) {
  const frame = /^(\s*)(Cell In\[\d+\]|File "[^"]*")(, line \d+)(.*)$/.exec(text);
  if (frame) {
    return (
      <Text wrap={wrap}>
        {frame[1]}
        <Text color="cyan">{frame[2]}</Text>
        <Text color="green">{frame[3]}</Text>
        {frame[4]}
      </Text>
    );
  }
  if (/^\s*[\^~]+\s*$/.test(text))
    return (
      <Text wrap={wrap} color="red">
        {text}
      </Text>
    );
  if (
    /^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit|Warning|StopIteration)\b/.test(text) ||
    /^\w+: /.test(text)
  ) {
    return (
      <Text wrap={wrap} color="red" bold>
        {text}
      </Text>
    );
  }
  if (text.startsWith('Traceback') || text.startsWith('During handling') || text.startsWith('The above')) {
    return (
      <Text wrap={wrap} color="red">
        {text}
      </Text>
    );
  }
  return <Text wrap={wrap}>{text}</Text>;
}

function RowView({
  row,
  live,
  counter,
  first,
}: {
  row: Row;
  live: boolean;
  counter?: number;
  first: boolean;
}) {
  const wrap = live ? 'truncate-end' : 'wrap';
  if (row.kind === 'image') return <Text wrap={wrap}>{row.ansi ?? placeholder(row.image)}</Text>;
  // (In kitty/iTerm2 mode the placeholder stays, and the image itself is drawn below the cell.)
  const text = clampLine(row.text);
  if (row.stream === 'result' && first && counter !== undefined) {
    return (
      <Text wrap={wrap}>
        <Text color="red">Out[{counter}]: </Text>
        {text}
      </Text>
    );
  }
  if (row.stream === 'error') return <TracebackLine text={text} wrap={wrap} />;
  return (
    <Text wrap={wrap} color={STREAM_COLOR[row.stream]}>
      {row.stream === 'status' ? `· ${text}` : text}
    </Text>
  );
}

export function CellBlock({ cell, maxRows, now, color, selected }: CellBlockProps): ReactNode {
  const live = maxRows !== undefined;
  if (cell.kind === 'info') {
    // The notebook's own messages (help, restarts, background output): just the text.
    return (
      <Box flexDirection="column">
        {rowsOf(cell.output).map((row, i) => (
          <RowView key={`i${i}`} row={row} live={false} first={false} />
        ))}
      </Box>
    );
  }
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

  let codeLines = highlightCode(cell.code, color, cell.language).split('\n');
  const rows = rowsOf(cell.output);
  let shown: Row[];
  let hidden: number;
  if (live) {
    // Header, code and output must fit in maxRows terminal rows.
    const codeBudget = Math.max(1, Math.min(codeLines.length, Math.floor((maxRows - 1) / 3)));
    if (codeLines.length > codeBudget) {
      codeLines = [
        ...codeLines.slice(0, codeBudget - 1),
        `… ${codeLines.length - codeBudget + 1} more code lines`,
      ];
    }
    let budget = Math.max(0, maxRows - 1 - codeLines.length - 1);
    shown = [];
    for (let i = rows.length - 1; i >= 0 && budget > 0; i--) {
      const height = rowHeight(rows[i] as Row);
      if (height > budget) break;
      budget -= height;
      shown.unshift(rows[i] as Row);
    }
    hidden = rows.length - shown.length;
  } else {
    ({ items: shown, hidden } = tail(rows, cell.expanded));
    // Rows not kept in memory count as hidden too (the marker row stands for them).
    if (hidden && cell.output.omitted) hidden += cell.output.omitted - 1;
  }
  const firstResult = shown.findIndex((r) => r.kind === 'text' && r.stream === 'result');
  // A result of several rows (a table, a long repr) starts under its Out[n]: label, as in IPython.
  const resultRows = shown.filter((r) => r.kind === 'text' && r.stream === 'result').length;
  const outOnOwnLine = firstResult !== -1 && resultRows > 1 && cell.executionCount !== undefined;
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text color={status.color}>{glyph}</Text>
        <Text bold> {counter}</Text>
        {cell.title ? <Text> {cell.title}</Text> : null}
        <Text color={status.color}> {status.label}</Text>
        {elapsed ? <Text dimColor> · {elapsed}</Text> : null}
        {selected ? <Text inverse> selected </Text> : null}
      </Text>
      {codeLines.map((line, i) => (
        <Text key={`c${i}`} wrap={live ? 'truncate-end' : 'wrap'}>
          <Text dimColor>│ </Text>
          {line}
        </Text>
      ))}
      {hidden > 0 ? (
        <Text dimColor wrap="truncate-end">
          {live ? `… ${hidden} earlier lines` : hiddenLabel(hidden)}
        </Text>
      ) : null}
      {shown.map((row, i) => (
        <Box key={`o${i}`} flexDirection="column">
          {outOnOwnLine && i === firstResult ? <Text color="red">Out[{cell.executionCount}]:</Text> : null}
          <RowView
            row={row}
            live={live}
            counter={cell.executionCount}
            first={i === firstResult && !outOnOwnLine}
          />
        </Box>
      ))}
    </Box>
  );
}
