/**
 * Printing finished cells: each is made into text once (its header and code by Ink's
 * renderToString, its output as lines of text) and written above the live region through Ink's
 * stdout, then kept only as data. Nothing printed is ever
 * printed again by itself: expanding output prints it anew below, and resizes leave the
 * transcript to the terminal's scroll-back. (Ink's <Static> keeps every byte it printed in
 * memory, for ever.)
 */

import chalk, { type ChalkInstance } from 'chalk';
import { CellBlock, type HeaderPart, headerParts } from '../components/CellBlock.js';
import { renderToString } from '../ink.js';
import { rowsOf } from '../state/output.js';
import type { CellView } from '../state/reducer.js';
import { expandTabs } from '../text/graphemes.js';
import { columnsOf } from '../text/textWidth.js';
import { highlightCode } from './highlight.js';
import { type ImageMode, nativeImage } from './images.js';
import { printedOutput } from './rowText.js';

export interface PrinterOptions {
  write: (data: string) => void;
  color: boolean;
  imageMode: ImageMode;
  columns: () => number;
}

export interface Printer {
  /** Prints finished cells (collapsed) and messages, in order. */
  print: (cells: readonly CellView[]) => void;
  /** Prints every kept row of a cell's output. */
  printExpanded: (cell: CellView) => void;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: what Ink would have to sanitize or cut
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

function styled(part: HeaderPart): string {
  let style: ChalkInstance = chalk;
  if (part.dim) style = style.dim;
  if (part.color) style = (style as unknown as Record<string, ChalkInstance>)[part.color] ?? style;
  if (part.bold) style = style.bold;
  return style === chalk ? part.text : style(part.text);
}

/**
 * A printed cell's header and code as Ink draws them (`<CellBlock>` unlimited), made without Ink
 * when nothing needs cutting or wrapping: the header fits the width and every code line fits
 * beside the gutter. Undefined otherwise (then Ink draws it). Ink's renderToString mounts a tree,
 * lays it out and serialises every styled cell: 2 ms a cell, the most of what the notebook spent
 * on an agent's quick call (docs/performance.md).
 */
export function plainBlock(cell: CellView, color: boolean, width: number): string | undefined {
  const parts = headerParts(cell);
  const header = parts.map((p) => p.text).join('');
  if (width < 3 || CONTROL.test(header) || columnsOf(header) > width) return undefined;
  const code = expandTabs(cell.code);
  if (CONTROL.test(code)) return undefined;
  for (const line of code.split('\n')) if (columnsOf(line) > width - 2) return undefined;
  const gutter = chalk.dim('│');
  const rows = highlightCode(code, color, cell.highlight ?? cell.language)
    .split('\n')
    // (Ink's rows end where their last drawn character does)
    .map((line) => `${gutter} ${line}`.replace(/ +$/, ''));
  return [parts.map(styled).join(''), ...rows].join('\n');
}

/** Characters of printed cells joined into one write, at most (then another). */
const PRINT_CHUNK = 64 * 1024;

export function createPrinter({ write, color, imageMode, columns }: PrinterOptions): Printer {
  const render = (cell: CellView, expanded: boolean) => {
    const width = columns();
    // The header and the code through Ink (a code line that wraps keeps its gutter); the output
    // as lines of text, which the terminal wraps (rowText.ts). The notebook's own messages
    // are output only.
    const lines = printedOutput(cell, expanded, width);
    if (cell.kind !== 'info')
      lines.unshift(
        plainBlock(cell, color, width) ??
          renderToString(<CellBlock cell={cell} color={color} />, { columns: width }),
      );
    let text = lines.join('\n');
    // Native image protocols cannot live inside Ink's frame: they follow the cell's text.
    if (imageMode === 'kitty' || imageMode === 'iterm') {
      for (const row of rowsOf(cell.output)) {
        if (row.kind === 'image')
          text += `\n${nativeImage(row.image, imageMode, row.columns ?? Math.min(width - 2, 80))}`;
      }
    }
    // A blank line after each block; lines that threads print between cells run on together.
    return `${text}\n${cell.background ? '' : '\n'}`;
  };
  return {
    // Several cells in one write: each write erases Ink's live frame and draws it again below.
    print: (cells) => {
      let text = '';
      for (const cell of cells) {
        text += render(cell, false);
        if (text.length < PRINT_CHUNK) continue;
        write(text);
        text = '';
      }
      if (text) write(text);
    },
    printExpanded: (cell) => write(render(cell, true)),
  };
}
