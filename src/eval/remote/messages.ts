/**
 * Jupyter messages → the engine's frames, so a remote kernel's cells reach the front ends as a
 * local kernel's do. Pure: no connection, no state (clear_output's `wait` is kept by the cell).
 */
import { STATUS_MIME } from '../output/display.js';
import type { Frame, MimeBundle } from '../protocol/index.js';

/** The fields of a Jupyter message this module reads (the library's IMessage has them). */
export interface JupyterMessage {
  header: { msg_type: string };
  content: object;
}

/** What an iopub message means for the cell it belongs to. */
export type IopubMeaning =
  | { kind: 'frame'; frame: Frame }
  | { kind: 'started' }
  | { kind: 'clear'; wait: boolean }
  | { kind: 'other' };

/** The status bundle the local kernels send for clear_output (front ends read both alike). */
export const CLEAR_OUTPUT_BUNDLE: MimeBundle = { [STATUS_MIME]: { op: 'clear_output' } };

const displayIdOf = (content: Record<string, unknown>): string | undefined => {
  const transient = content.transient as { display_id?: unknown } | undefined;
  return typeof transient?.display_id === 'string' ? transient.display_id : undefined;
};

const bundleOf = (content: Record<string, unknown>): MimeBundle =>
  content.data && typeof content.data === 'object' ? (content.data as MimeBundle) : {};

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.map((line) => (typeof line === 'string' ? line : String(line))) : [];

/** One iopub message of a cell (whose frames carry `id`), as the engine reads it. */
export function readIopub(msg: JupyterMessage, id: string | null): IopubMeaning {
  const c = msg.content as Record<string, unknown>;
  switch (msg.header.msg_type) {
    case 'stream':
      return {
        kind: 'frame',
        frame: { type: c.name === 'stderr' ? 'stderr' : 'stdout', id, data: String(c.text ?? '') },
      };
    case 'display_data':
    case 'update_display_data': {
      const displayId = displayIdOf(c);
      const update = msg.header.msg_type === 'update_display_data';
      return {
        kind: 'frame',
        frame: {
          type: 'display',
          id,
          bundle: bundleOf(c),
          ...(displayId !== undefined ? { displayId } : {}),
          ...(update && displayId !== undefined ? { update: true } : {}),
        },
      };
    }
    case 'execute_result': {
      const displayId = displayIdOf(c);
      return {
        kind: 'frame',
        frame: { type: 'result', id, bundle: bundleOf(c), ...(displayId !== undefined ? { displayId } : {}) },
      };
    }
    case 'error':
      return {
        kind: 'frame',
        frame: {
          type: 'error',
          id,
          ename: String(c.ename ?? 'Error'),
          evalue: String(c.evalue ?? ''),
          traceback: strings(c.traceback),
        },
      };
    case 'clear_output':
      return { kind: 'clear', wait: c.wait === true };
    case 'execute_input':
      return { kind: 'started' };
    default:
      return { kind: 'other' };
  }
}

/** The code point offset of a UTF-16 offset into `text` (Jupyter counts cursors in code points). */
export function codePointOffset(text: string, utf16: number): number {
  return [...text.slice(0, utf16)].length;
}

/** The UTF-16 offset of a code point offset into `text`. */
export function utf16Offset(text: string, codePoints: number): number {
  let offset = 0;
  let seen = 0;
  for (const char of text) {
    if (seen >= codePoints) break;
    offset += char.length;
    seen++;
  }
  return offset;
}
