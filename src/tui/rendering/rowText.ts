/**
 * A cell's output rows as the text a terminal shows: each row one line, coloured by its stream
 * (tracebacks as IPython colours them), `Out[n]:` before a result, the note of what was left out.
 * The live region draws these lines through Ink, each cut at the width; a printed cell's output is
 * written as they are, and the terminal wraps a long line itself: it stays one line, copied whole
 * and reflowed when the terminal is resized, as what a program prints in a terminal (Ink's
 * wrapping broke it into rows of the width it had, for good).
 */
import chalk from 'chalk';
import wrapAnsi from 'wrap-ansi';
import type { Row, Stream } from '../state/output.js';
import { rowsOf, spillNote } from '../state/output.js';
import type { CellView } from '../state/reducer.js';
import { placeholder } from './images.js';
import { AGENT_PREVIEW, clampLine, hiddenLabel, type PreviewItem, previewItems } from './preview.js';

const STREAM_STYLE: Partial<Record<Stream, (text: string) => string>> = {
  stderr: chalk.red,
  error: chalk.red,
  notice: chalk.yellow,
  status: chalk.cyan,
};

/**
 * A traceback line, coloured as IPython does: frame headers in green with the cell in cyan,
 * markers (^^^) in red, the exception line in bold red, source lines plain.
 */
function tracebackLine(text: string): string {
  const frame = /^(\s*)(Cell In\[\d+\]|File "[^"]*")(, line \d+)(.*)$/.exec(text);
  if (frame) return `${frame[1]}${chalk.cyan(frame[2])}${chalk.green(frame[3])}${frame[4]}`;
  if (/^\s*[\^~]+\s*$/.test(text)) return chalk.red(text);
  const exception =
    /^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit|Warning|StopIteration)\b/.test(text) ||
    /^\w+: /.test(text);
  if (exception) return chalk.bold.red(text);
  const header =
    text.startsWith('Traceback') || text.startsWith('During handling') || text.startsWith('The above');
  return header ? chalk.red(text) : text;
}

/**
 * One row as a line: `outLabel` puts `Out[n]: ` before it (a one-line result). The colour the
 * cell's own text sets ends with its line, and a line cut at MAX_LINE_CHARS ends with a note of
 * what was cut, dim, in no colour of the text's.
 */
export function rowLine(row: Row, outLabel?: number): string {
  if (row.kind === 'image') return row.ansi ?? placeholder(row.image);
  const { kept, omitted } = clampLine(row.text, row.cut);
  const text = kept.includes('\x1b') ? `${kept}\x1b[0m` : kept;
  const cut = omitted ? chalk.dim(`… [${omitted} chars omitted]`) : '';
  if (outLabel !== undefined) return `${chalk.red(`Out[${outLabel}]: `)}${text}${cut}`;
  if (row.stream === 'error') return tracebackLine(text) + cut;
  const shown = row.stream === 'status' ? `· ${text}` : text;
  const style = STREAM_STYLE[row.stream];
  return (style ? style(shown) : shown) + cut;
}

/**
 * Which result row carries the Out[n] label (the first), and whether a result of several rows (a
 * table, a long repr) puts it on a line of its own above them, as IPython does.
 */
export function outLabels(
  items: readonly PreviewItem[],
  label: number | undefined,
): { first?: PreviewItem; ownLine: boolean } {
  const results = items.filter((i) => 'row' in i && i.row.kind === 'text' && i.row.stream === 'result');
  return { ...(results[0] ? { first: results[0] } : {}), ownLine: results.length > 1 && label !== undefined };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape codes wrap-ansi puts around a break
const SPACE_AT_BREAK = / +((?:\x1b\[[0-9;]*m)*)\n/g;

/**
 * The notebook's own words, wrapped at spaces to `columns` (a program's lines the terminal wraps).
 * A word longer than a row (a file's path) is not cut: the terminal wraps it, and it is copied
 * whole; no line ends with the space it was wrapped at.
 */
const ownWords = (text: string, columns: number) =>
  wrapAnsi(text, columns, { hard: false, trim: false }).replace(SPACE_AT_BREAK, '$1\n');

/**
 * A finished cell's output as printed: collapsed or `expanded` (Ctrl-O), with its note. What the
 * cell printed is one line a row (what threads printed between cells too); what the notebook says
 * (its notices, the notes of what was left out, its messages) is wrapped at `columns`, between
 * words.
 */
export function printedOutput(cell: CellView, expanded: boolean, columns: number): string[] {
  // (An info cell is the notebook's message, unless it holds what threads printed between cells.)
  const said = cell.kind === 'info' && !cell.background;
  const own = (row: Row) =>
    row.kind === 'text' && (said || row.stream === 'notice' || row.stream === 'status');
  const line = (row: Row, label?: number) =>
    own(row) ? ownWords(rowLine(row, label), columns) : rowLine(row, label);
  if (cell.kind === 'info') return rowsOf(cell.output).map((row) => line(row));
  const items = previewItems(cell.output, expanded, cell.party ? AGENT_PREVIEW : undefined);
  const label = cell.executionCount;
  const { first, ownLine } = outLabels(items, label);
  const lines: string[] = [];
  for (const item of items) {
    if (!('row' in item)) {
      lines.push(chalk.dim(ownWords(hiddenLabel(item.hidden, item.kept, item.showable), columns)));
      continue;
    }
    if (item === first && ownLine) lines.push(chalk.red(`Out[${label}]:`));
    lines.push(line(item.row, item === first && !ownLine ? label : undefined));
  }
  const note = spillNote(cell.output);
  if (note) lines.push(chalk.yellow(ownWords(note, columns)));
  return lines;
}
