/**
 * Requests: what the host sends a kernel. They are made only by the constructors below, so every
 * request on the wire has the shape both runners expect.
 */

export interface ExecuteRequest {
  type: 'execute';
  id: string;
  code: string;
  silent: boolean;
  storeHistory: boolean;
  allowStdin?: boolean;
  /**
   * (with allowStdin) The front end's input ends, as a pipe or a file does: each answer is a piece
   * of whole lines with their `\n` (the input's last line may have none), `eof` answers at its
   * end, and `sys.stdin.read()` reads up to there (else an answer is what a person typed, and
   * read() is one answer).
   */
  stdinEnds?: boolean;
  /** Applied before the code runs (the init request sets them). */
  cwd?: string;
  env?: Record<string, string | null>;
  /** The kernel's init request: its code is the prelude, which `%reset` runs again. */
  init?: boolean;
  /** (init only) The key the runner puts on every frame; the host drops frames without it. */
  frameKey?: string;
  /** (init only) The script the kernel's cells come from (`omp-eval run`): see ScriptInfo. */
  script?: ScriptInfo;
  /**
   * The number the front end shows for this cell (`In [n]`): the runner names the cell's code
   * `Cell In[n]` in tracebacks, and its count goes on from there (never back), so `Out[n]`, `_n`
   * and `In[n]` are this cell (after a restart, or over js cells).
   */
  cellNumber?: number;
  /**
   * (`omp-eval run`) The script's line where the cell starts: the runner numbers the cell's lines
   * as in the script and names the script (ScriptInfo's path) in tracebacks, as its interpreter.
   */
  scriptLine?: number;
}
/**
 * A script run cell by cell, as its interpreter would run it: `sys.argv` / `process.argv` name it
 * (`argv[0]` as given, `-` for stdin); `__file__` is `path` (`<stdin>` for stdin), and the folder
 * of an absolute path is first on `sys.path`.
 */
export interface ScriptInfo {
  path?: string;
  argv: string[];
}
export interface ExitRequest {
  type: 'exit';
}
export interface InputReplyRequest {
  type: 'input_reply';
  id: string;
  value: string;
  /** The front end's input has ended (`value` is empty): input() raises EOFError. */
  eof?: boolean;
}
export interface CompleteRequest {
  type: 'complete';
  id: string;
  code: string;
  cursor: number;
}
/** Whether `code` is a whole cell (Enter runs it) or needs more lines; answered by is_complete_reply. */
export interface IsCompleteRequest {
  type: 'is_complete';
  id: string;
  code: string;
}
/** The names the user defined (as %whos); answered by variables_reply. */
export interface VariablesRequest {
  type: 'variables';
  id: string;
  /** At most this many names are described (all are counted). */
  limit: number;
}
export type Request =
  | ExecuteRequest
  | ExitRequest
  | InputReplyRequest
  | CompleteRequest
  | IsCompleteRequest
  | VariablesRequest;

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
  };
}

/** The first request of every kernel: working directory, environment and the prelude. */
export function initRequest(
  id: string,
  prelude: string,
  cwd: string,
  env?: Record<string, string | null>,
  frameKey?: string,
  script?: ScriptInfo,
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

export const variablesRequest = (id: string, limit: number): VariablesRequest => ({
  type: 'variables',
  id,
  limit,
});

export function encodeRequest(request: Request): string {
  return `${JSON.stringify(request)}\n`;
}
