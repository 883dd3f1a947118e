/**
 * Printing finished cells: each is made into text once (its header and code by Ink's
 * renderToString, its output as lines of text) and written above the live region through Ink's
 * stdout, then kept only as data. Nothing printed is ever
 * printed again by itself: expanding output prints it anew below, and resizes leave the
 * transcript to the terminal's scroll-back. (Ink's <Static> keeps every byte it printed in
 * memory, for ever.)
 */

import { CellBlock } from '../components/CellBlock.js';
import { renderToString } from '../ink.js';
import { rowsOf } from '../state/output.js';
import type { CellView } from '../state/reducer.js';
import { type ImageMode, nativeImage } from './images.js';
import { printedOutput } from './rowText.js';

export interface PrinterOptions {
  write: (data: string) => void;
  color: boolean;
  imageMode: ImageMode;
  columns: () => number;
}

export interface Printer {
  /** Prints a finished cell (collapsed) or a message. */
  print: (cell: CellView) => void;
  /** Prints every kept row of a cell's output. */
  printExpanded: (cell: CellView) => void;
}

export function createPrinter({ write, color, imageMode, columns }: PrinterOptions): Printer {
  const render = (cell: CellView, expanded: boolean) => {
    const width = columns();
    // The header and the code through Ink (a code line that wraps keeps its gutter); the output
    // as lines of text, which the terminal wraps (rowText.ts). The notebook's own messages
    // are output only.
    const lines = printedOutput(cell, expanded, width);
    if (cell.kind !== 'info')
      lines.unshift(renderToString(<CellBlock cell={cell} color={color} />, { columns: width }));
    let text = lines.join('\n');
    // Native image protocols cannot live inside Ink's frame: they follow the cell's text.
    if (imageMode === 'kitty' || imageMode === 'iterm') {
      for (const row of rowsOf(cell.output)) {
        if (row.kind === 'image')
          text += `\n${nativeImage(row.image, imageMode, row.columns ?? Math.min(width - 2, 80))}`;
      }
    }
    // A blank line after each block; lines that threads print between cells run on together.
    write(`${text}\n${cell.background ? '' : '\n'}`);
  };
  return {
    print: (cell) => render(cell, false),
    printExpanded: (cell) => render(cell, true),
  };
}
