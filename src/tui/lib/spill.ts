/**
 * Where a cell's whole text output goes once the notebook cannot keep all of it: the engine's
 * artifact file (the same writer and private directory the eval tool uses), named in the cell.
 */
import { OutputSink } from '../../eval/index.js';
import type { Spill } from '../state/output.js';

/** Pieces this long are committed to the file as they come: nothing large waits in memory. */
const SPILL_PIECE_CHARS = 1024;

export function openSpill(): Spill {
  // Nothing kept in memory (no head, no tail): everything goes to the file from the second piece.
  const sink = new OutputSink({ headChars: 0, tailChars: 0, lineChars: SPILL_PIECE_CHARS });
  return {
    push: (text) => sink.push(text),
    end: () => sink.end(),
    get where() {
      const truncation = sink.truncation;
      if (truncation?.artifactPath) return { path: truncation.artifactPath };
      return sink.artifactError ? { error: sink.artifactError } : {};
    },
  };
}
