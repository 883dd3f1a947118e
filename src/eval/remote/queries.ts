/**
 * A remote kernel's questions between cells, as Jupyter asks them: complete_request and
 * is_complete_request, with offsets converted between JavaScript's UTF-16 and Jupyter's code
 * points. A kernel that does not answer in time gives no completions, or `unknown`. (Its variables:
 * variables.ts.)
 */
import type { Kernel as JupyterKernel } from '@jupyterlab/services';
import type { Completion } from '../kernel/types.js';
import { withDeadline } from './deadline.js';
import { codePointOffset, utf16Offset } from './messages.js';

/** What a completeness check says (is_complete_reply). */
export interface Completeness {
  status: 'complete' | 'incomplete' | 'invalid' | 'unknown';
  indent?: string;
}

/** Completions for the name before `cursor`. */
export async function remoteComplete(
  connection: JupyterKernel.IKernelConnection,
  code: string,
  cursor: number,
  timeoutMs: number,
): Promise<Completion> {
  const none = { matches: [], start: cursor, end: cursor };
  const request = connection.requestComplete({ code, cursor_pos: codePointOffset(code, cursor) });
  const reply = await withDeadline(request, timeoutMs, () => new Error('timeout')).catch(() => undefined);
  if (reply?.content.status !== 'ok') return none;
  const { matches, cursor_start, cursor_end } = reply.content;
  return { matches, start: utf16Offset(code, cursor_start), end: utf16Offset(code, cursor_end) };
}

/** Whether `code` is a whole cell for the kernel's language. */
export async function remoteIsComplete(
  connection: JupyterKernel.IKernelConnection,
  code: string,
  timeoutMs: number,
): Promise<Completeness> {
  const request = connection.requestIsComplete({ code });
  const reply = await withDeadline(request, timeoutMs, () => new Error('timeout')).catch(() => undefined);
  if (!reply) return { status: 'unknown' };
  const content = reply.content as { status: Completeness['status']; indent?: string };
  return { status: content.status, ...(content.indent !== undefined ? { indent: content.indent } : {}) };
}
