/**
 * input() in a cell, answered by the user through MCP elicitation (`elicitation/create`, form
 * mode) when the client offers it: the prompt is the message, the form one string field, and the
 * answer goes to the kernel as input()'s line. Without the capability the cells run without stdin
 * as before (StdinNotImplementedError with its advice).
 *
 * getpass() is not asked: the specification (2025-11-25 and later) says servers MUST NOT request
 * passwords or other secrets through form mode, and the form schema has no password format to mark
 * it; URL mode would need a page of ours to type it into. Its input ends (EOFError) and the
 * result says how to give the kernel a secret instead.
 */
import {
  type ClientCapabilities,
  type ElicitRequestFormParams,
  ElicitResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ClientAsker } from './clientAsk.js';

/** How long the user may take to answer (a cell's own timeout still applies). */
const INPUT_TIMEOUT_MS = 60 * 60_000;

const PASSWORD_NOT_ASKED =
  'getpass() was not asked of the user: MCP forbids asking for passwords and other secrets in an elicitation form, so its input ended (EOFError). Have the user put the secret in an environment variable the kernel gets (omp-eval mcp --pass-env NAME) and read it with os.environ (process.env in JavaScript).';

/** The client answers form elicitations: `elicitation: {}` (before modes) or with `form`. */
export function offersFormElicitation(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as Record<string, unknown> | undefined;
  if (!elicitation || typeof elicitation !== 'object') return false;
  if (!('form' in elicitation) && !('url' in elicitation)) return true;
  return elicitation.form !== undefined && elicitation.form !== null;
}

/** The form for one input() of cell `cell` (1-based). */
export function inputForm(prompt: string, cell: number): ElicitRequestFormParams {
  const message = prompt.trim() ? prompt.trimEnd() : `Cell ${cell} waits for a line of input (input()).`;
  return {
    message,
    requestedSchema: {
      type: 'object',
      properties: {
        input: {
          type: 'string',
          title: 'Input',
          description: `The line input() returns in cell ${cell} of the running eval call.`,
        },
      },
      required: ['input'],
    },
  };
}

export interface InputAnswer {
  /** The line for the kernel; null ends the cell's input (EOFError). */
  value: string | null;
  /** What the call's result says (a declined form, getpass, a failed request). */
  note?: string;
}

/** Asks the user for one input() line; never throws. */
export async function askForInput(
  asker: ClientAsker,
  request: { prompt: string; password: boolean; cell: number; signal: AbortSignal },
): Promise<InputAnswer> {
  const { prompt, password, cell, signal } = request;
  if (password) return { value: null, note: PASSWORD_NOT_ASKED };
  try {
    const result = await asker.ask(
      { method: 'elicitation/create', params: inputForm(prompt, cell) },
      ElicitResultSchema,
      { signal, timeoutMs: INPUT_TIMEOUT_MS },
    );
    const value = result.content?.input;
    if (result.action === 'accept' && typeof value === 'string') return { value };
    const what = { accept: 'answered without the input field', decline: 'declined', cancel: 'cancelled' }[
      result.action
    ];
    return {
      value: null,
      note: `The user ${what} the input() of cell ${cell}: its input ended there (EOFError).`,
    };
  } catch (err) {
    if (signal.aborted) return { value: null };
    return { value: null, note: `The input() of cell ${cell} could not be asked: ${(err as Error).message}` };
  }
}
