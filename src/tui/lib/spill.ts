/**
 * Where a cell's whole text output goes once the notebook cannot keep all of it: an artifact file
 * of the engine (the same writer and private directory the eval tool uses), named in the cell. The
 * text comes sanitized from the cell's output buffer and goes to the file as it is: a line rewritten
 * with `\r` keeps every state it was printed in, as a terminal's log would.
 */
import { ArtifactFile } from '../../eval/index.js';
import type { Spill } from '../state/output.js';

export function openSpill(): Spill {
  const file = ArtifactFile.create();
  if (typeof file === 'string') return { push() {}, end() {}, where: { error: file } };
  return {
    push: (text) => file.write(text),
    end: () => file.close(),
    get where() {
      return file.error ? { error: file.error } : { path: file.path };
    },
  };
}
