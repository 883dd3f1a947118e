/** One row of a cell's output in the live region: its line (rendering/rowText.ts), cut at the width. */

import type { ReactNode } from 'react';
import { Text } from '../ink.js';
import { rowLine } from '../rendering/rowText.js';
import type { Row } from '../state/output.js';

/** An empty line as one space: Ink gives an empty <Text> no row at all, and the line would vanish. */
export const lineOrSpace = (line: string): string => line || ' ';

export interface OutputRowProps {
  row: Row;
  /** `Out[n]: ` before this row (the first row of a one-line result). */
  outLabel?: number;
}

export function OutputRow({ row, outLabel }: OutputRowProps): ReactNode {
  // (In kitty/iTerm2 mode the placeholder stays, and the image itself is drawn below the cell.)
  return <Text wrap="truncate-end">{lineOrSpace(rowLine(row, outLabel))}</Text>;
}
