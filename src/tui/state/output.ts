/**
 * A cell's output as screen rows: text split into lines (a `\r` rewrites the open line, as a
 * terminal would), images as rows of their own. Memory is bounded: past a cap, the first rows and
 * the last rows are kept and the middle is counted.
 */
import type { ImageOutput } from '../../eval/index.js';
import { sanitize } from '../../eval/index.js';

export type Stream = 'stdout' | 'stderr' | 'result' | 'error' | 'notice' | 'status' | 'markdown';

export type Row =
  | { kind: 'text'; stream: Stream; text: string; open?: boolean }
  | { kind: 'image'; image: ImageOutput /** half-block rendering, made when it arrived */; ansi?: string };

export interface Output {
  head: Row[];
  tail: Row[];
  /** Rows dropped between head and tail. */
  omitted: number;
}

export const HEAD_ROWS = 1000;
export const TAIL_ROWS = 10_000;

export const emptyOutput = (): Output => ({ head: [], tail: [], omitted: 0 });

/** All rows to show, with a marker row where rows were dropped. */
export function rowsOf(output: Output): Row[] {
  if (!output.omitted) return [...output.head, ...output.tail];
  const marker: Row = { kind: 'text', stream: 'notice', text: `… ${output.omitted} lines not kept …` };
  return [...output.head, marker, ...output.tail];
}

export function rowCount(output: Output): number {
  return output.head.length + output.tail.length + (output.omitted ? 1 : 0);
}

function push(output: Output, row: Row): void {
  if (output.head.length < HEAD_ROWS && !output.tail.length) {
    output.head.push(row);
    return;
  }
  output.tail.push(row);
  if (output.tail.length > TAIL_ROWS * 1.5) {
    const drop = output.tail.length - TAIL_ROWS;
    output.tail.splice(0, drop);
    output.omitted += drop;
  }
}

function lastRow(output: Output): Row | undefined {
  return output.tail.at(-1) ?? (output.tail.length ? undefined : output.head.at(-1));
}

/** Appends text of one stream; returns a new Output (the old one is not changed). */
export function appendText(prev: Output, stream: Stream, text: string): Output {
  const output: Output = { head: [...prev.head], tail: [...prev.tail], omitted: prev.omitted };
  const clean = sanitize(text.replace(/\r\n/g, '\n'));
  const pieces = clean.split('\n');
  pieces.forEach((piece, i) => {
    const last = lastRow(output);
    const continues = i === 0 && last?.kind === 'text' && last.open && last.stream === stream;
    const cr = piece.lastIndexOf('\r');
    const visible = cr === -1 ? piece : piece.slice(cr + 1);
    const closed = i < pieces.length - 1;
    if (continues && last?.kind === 'text') {
      const text = cr === -1 ? last.text + visible : visible;
      const row: Row = { kind: 'text', stream, text, open: !closed };
      if (output.tail.length) output.tail[output.tail.length - 1] = row;
      else output.head[output.head.length - 1] = row;
    } else if (visible || closed) {
      push(output, { kind: 'text', stream, text: visible, open: !closed });
    }
  });
  return output;
}

export function appendImage(prev: Output, image: ImageOutput, ansi?: string): Output {
  const output: Output = { head: [...prev.head], tail: [...prev.tail], omitted: prev.omitted };
  push(output, { kind: 'image', image, ...(ansi !== undefined ? { ansi } : {}) });
  return output;
}
