/**
 * Requests: what the host sends a kernel. They are made only by the constructors below, so every
 * request on the wire has the shape both runners expect.
 */

import type {
  CompleteRequest,
  ExecuteRequest,
  ExitRequest,
  InputReplyRequest,
  IsCompleteRequest,
  Request,
  VariablesRequest,
} from './wire.js';

// The requests' types are generated from src/eval/schemas/protocol.json (scripts/gen-validators.mjs),
// which says what each field means.
export type {
  CompleteRequest,
  ExecuteRequest,
  ExitRequest,
  InputReplyRequest,
  IsCompleteRequest,
  Request,
  ScriptInfo,
  VariablesRequest,
} from './wire.js';

export function executeRequest(
  id: string,
  code: string,
  options: {
    silent?: boolean;
    storeHistory?: boolean;
    allowStdin?: boolean;
    stdinEnds?: boolean;
    cellNumber?: number;
    scriptLine?: number;
    env?: Record<string, string | null>;
  } = {},
): ExecuteRequest {
  const silent = options.silent ?? false;
  return {
    type: 'execute',
    id,
    code,
    silent,
    storeHistory: options.storeHistory ?? !silent,
    ...(options.allowStdin ? { allowStdin: true } : {}),
    ...(options.allowStdin && options.stdinEnds ? { stdinEnds: true } : {}),
    ...(options.cellNumber !== undefined ? { cellNumber: options.cellNumber } : {}),
    ...(options.scriptLine !== undefined ? { scriptLine: options.scriptLine } : {}),
    ...(options.env && Object.keys(options.env).length ? { env: options.env } : {}),
  };
}

/** The first request of every kernel: working directory, environment and the prelude. */
export function initRequest(
  id: string,
  prelude: string,
  cwd: string,
  env?: Record<string, string | null>,
  frameKey?: string,
  script?: ExecuteRequest['script'],
): ExecuteRequest {
  return {
    type: 'execute',
    id,
    code: prelude,
    silent: true,
    storeHistory: false,
    init: true,
    cwd,
    ...(env ? { env } : {}),
    ...(frameKey ? { frameKey } : {}),
    ...(script ? { script } : {}),
  };
}

export const exitRequest = (): ExitRequest => ({ type: 'exit' });

/** The answer to an input_request; `null`: the front end's input has ended. */
export const inputReply = (id: string, value: string | null): InputReplyRequest => ({
  type: 'input_reply',
  id,
  value: value ?? '',
  ...(value === null ? { eof: true } : {}),
});

export const completeRequest = (id: string, code: string, cursor: number): CompleteRequest => ({
  type: 'complete',
  id,
  code,
  cursor,
});

export const isCompleteRequest = (id: string, code: string): IsCompleteRequest => ({
  type: 'is_complete',
  id,
  code,
});

export const variablesRequest = (
  id: string,
  limit: number,
  deadlines: { nameTimeoutMs?: number; timeoutMs?: number } = {},
): VariablesRequest => ({
  type: 'variables',
  id,
  limit,
  ...(deadlines.nameTimeoutMs !== undefined ? { nameTimeoutMs: Math.round(deadlines.nameTimeoutMs) } : {}),
  ...(deadlines.timeoutMs !== undefined ? { timeoutMs: Math.round(deadlines.timeoutMs) } : {}),
});

export function encodeRequest(request: Request): string {
  return `${JSON.stringify(request)}\n`;
}
