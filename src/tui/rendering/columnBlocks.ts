/**
 * Tables wrapped into column blocks, each block with its own header: pandas' text repr of a wide
 * frame (blocks separated by a blank line, every block's first line but the last's ending in
 * `\`), and the notebook's own tables drawn from markdown (one box per block, `┌` to `└`, the
 * header above the first `├`). The collapsed preview uses them so that it never shows a block's
 * rows without their header. Pure functions on the lines' text.
 */
import { stripVTControlCharacters } from 'node:util';

/** Lines `start` to `end` (exclusive) are one block; `start` to `headerEnd` its header. */
export interface ColumnBlock {
  start: number;
  headerEnd: number;
  end: number;
}

/** At most this many header lines are taken for a pandas block (a MultiIndex's levels, an index name). */
const MAX_TEXT_HEADER = 4;

const isBlank = (line: string) => line.trim() === '';

/** The blocks of the tables among `lines`, in order. */
export function columnBlocks(lines: readonly string[]): ColumnBlock[] {
  const plain = lines.map((line) => stripVTControlCharacters(line));
  return [...boxBlocks(plain), ...pandasBlocks(plain)].sort((a, b) => a.start - b.start);
}

/** The notebook's drawn tables: from `┌` to `└`, the header down to the first `├`. */
function boxBlocks(lines: readonly string[]): ColumnBlock[] {
  const blocks: ColumnBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]?.startsWith('┌')) continue;
    let rule = -1;
    let j = i + 1;
    for (; j < lines.length && !lines[j]?.startsWith('└') && !lines[j]?.startsWith('┌'); j++)
      if (rule < 0 && lines[j]?.startsWith('├')) rule = j;
    if (lines[j]?.startsWith('└') && rule > i) blocks.push({ start: i, headerEnd: rule + 1, end: j + 1 });
    i = j - 1;
  }
  return blocks;
}

/** Runs of non-blank lines: [start, end). */
function paragraphs(lines: readonly string[]): [number, number][] {
  const runs: [number, number][] = [];
  let start = -1;
  for (let i = 0; i <= lines.length; i++) {
    const blank = i === lines.length || isBlank(lines[i] as string);
    if (!blank && start < 0) start = i;
    if (blank && start >= 0) {
      runs.push([start, i]);
      start = -1;
    }
  }
  return runs;
}

/**
 * pandas' wrapped frames: blocks of equal length one blank line apart, each block's first line but
 * the last block's ending in `\` (the first block may follow other output without a blank line).
 * A block's header is its first line and the lines after it that start with a space or hold one
 * word (the column levels, the index's name), up to the first row.
 */
function pandasBlocks(lines: readonly string[]): ColumnBlock[] {
  const runs = paragraphs(lines);
  const blocks: ColumnBlock[] = [];
  const continued = (line: number) => (lines[line] as string).trimEnd().endsWith('\\');
  for (let i = 0; i < runs.length; i++) {
    const [runStart, runEnd] = runs[i] as [number, number];
    let start = runStart;
    while (start < runEnd && !continued(start)) start++;
    const size = runEnd - start;
    if (size < 2) continue;
    const sequence: [number, number][] = [[start, runEnd]];
    let k = i;
    while (k + 1 < runs.length) {
      const next = runs[k + 1] as [number, number];
      if (next[0] - (runs[k] as [number, number])[1] !== 1 || next[1] - next[0] !== size) break;
      sequence.push(next);
      k++;
      if (!continued(next[0])) break;
    }
    if (sequence.length < 2) continue;
    const header = headerSize(lines, start, size);
    for (const [from, end] of sequence) blocks.push({ start: from, headerEnd: from + header, end });
    i = k;
  }
  return blocks;
}

function headerSize(lines: readonly string[], start: number, size: number): number {
  let n = 1;
  while (n < Math.min(size - 1, MAX_TEXT_HEADER)) {
    const line = lines[start + n] as string;
    if (!(line.startsWith(' ') || line.trim().split(/\s+/).length === 1)) break;
    n++;
  }
  return n;
}

/**
 * Where a collapsed preview's tail starts (its last `tail` of `count` lines, after `head` shown
 * first), and the header to show above it: a tail that starts inside a block whose header is
 * not shown (or inside the header) gets the whole header in place of as many of its first lines,
 * so the preview keeps its length.
 */
export function tailStart(
  blocks: readonly ColumnBlock[],
  count: number,
  head: number,
  tail: number,
): { from: number; header?: ColumnBlock } {
  let from = count - tail;
  for (;;) {
    const block = blocks.find((b) => b.start < from && from < b.end);
    if (!block || block.headerEnd <= head) return { from };
    const size = block.headerEnd - block.start;
    if (from + size < block.end) return { from: from + size, header: block };
    from += size; // (the tail now starts in a later block: look again)
    if (from >= count) return { from: count - tail };
  }
}
