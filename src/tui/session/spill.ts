/**
 * Where a cell's whole text output goes once the notebook cannot keep all of it: an artifact file
 * of the engine (the same writer and private directory the eval tool uses), named in the cell. The
 * text goes to the file as the cell printed it, as a terminal's log (`script`, `tee`) keeps it:
 * colour and other escape sequences included, and every state of a line rewritten with `\r`.
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
