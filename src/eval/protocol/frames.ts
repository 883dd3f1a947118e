/**
 * Frames: what a kernel (runner.py or runner.cjs) sends the host, one JSON object per line. Every
 * frame that crosses the process boundary is checked here before anything else sees it.
 *
 * Any frame may carry `sync: n`: it completes barrier n of the kernel's raw output (markers.ts),
 * and the host passes it on only once the raw output written before the barrier has been.
 */

/** A MIME bundle: MIME type → data (text, base64 for binary images, JSON for application/json). */
export type MimeBundle = Record<string, unknown>;

/** `id` is null for output between cells (background threads) and for protocol errors. */
export interface StartedFrame {
  type: 'started';
  id: string;
}
export interface StreamFrame {
  type: 'stdout' | 'stderr';
  id: string | null;
  data: string;
}
export interface DisplayFrame {
  type: 'display' | 'result';
  id: string | null;
  bundle: MimeBundle;
  /** display(obj, display_id=...): a later frame with `update` replaces this output. */
  displayId?: string;
  update?: boolean;
  /** text/plain is only the object's default repr(), and it offers a richer form. */
  plainIsRepr?: boolean;
  /** Per MIME type (Jupyter's display metadata), e.g. `{"image/png": {"width": 200}}`. */
  metadata?: Record<string, unknown>;
}
export interface ErrorFrame {
  type: 'error';
  id: string | null;
  ename: string;
  evalue: string;
  traceback: string[];
  /**
   * js ProcessExit: the code a cell passed to process.exit(); py SystemExit: the exit status the
   * interpreter would end a script with.
   */
  exitCode?: number;
  /** py SystemExit with a code that is neither None nor an integer: what Python prints as it exits. */
  exitMessage?: string;
}
export interface InputRequestFrame {
  type: 'input_request';
  id: string;
  prompt: string;
  password: boolean;
}
export interface CompleteReplyFrame {
  type: 'complete_reply';
  id: string;
  matches: string[];
  start: number;
  end: number;
}
/** How the kernel reads code typed so far: run it (complete) or wait for more lines. */
export type CompletenessStatus = 'complete' | 'incomplete' | 'invalid' | 'unknown';
export interface IsCompleteReplyFrame {
  type: 'is_complete_reply';
  id: string;
  status: CompletenessStatus;
  /** (incomplete) The next line's indentation. */
  indent?: string;
}
/** A name the user defined, as %whos lists it. */
export interface VariableInfo {
  name: string;
  type: string;
  /** %whos's Data/Info: `n=len` for containers, else str() cut in the middle past 50 characters. */
  summary: string;
  shape?: number[];
}
export interface VariablesReplyFrame {
  type: 'variables_reply';
  id: string;
  /** Sorted by name, at most the request's limit. */
  variables: VariableInfo[];
  /** How many names there are in all. */
  total: number;
}
export interface DoneFrame {
  type: 'done';
  id: string;
  status: 'ok' | 'error';
  executionCount: number;
  cancelled: boolean;
}

/** What every frame may carry besides its own fields (the key is taken off by the channel). */
interface FrameCommon {
  /** The barrier of the raw output this frame completes (markers.ts). */
  sync?: number;
}

export type Frame = (
  | StartedFrame
  | StreamFrame
  | DisplayFrame
  | ErrorFrame
  | InputRequestFrame
  | CompleteReplyFrame
  | IsCompleteReplyFrame
  | VariablesReplyFrame
  | DoneFrame
) &
  FrameCommon;

export type FrameType = Frame['type'];

type Check = (v: Record<string, unknown>) => string | undefined;

const isString = (v: unknown): v is string => typeof v === 'string';
const isId = (v: unknown) => v === null || typeof v === 'string';
const isInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v);
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const optional = (v: unknown, test: (v: unknown) => boolean) => v === undefined || test(v);
const isBoolean = (v: unknown) => typeof v === 'boolean';
const isSyncNumber = (v: unknown) => isInt(v) && (v as number) >= 0;

const COMPLETENESS: CompletenessStatus[] = ['complete', 'incomplete', 'invalid', 'unknown'];
const isVariable = (v: unknown) =>
  isObject(v) &&
  isString(v.name) &&
  isString(v.type) &&
  isString(v.summary) &&
  optional(v.shape, (s) => Array.isArray(s) && s.every(isInt));

/** Each frame type's rule: undefined when the frame is well formed, else what is wrong. */
const FRAME_RULES: Record<FrameType, Check> = {
  started: (v) => (isString(v.id) ? undefined : 'started frame needs a string id'),
  stdout: (v) => (isId(v.id) && isString(v.data) ? undefined : 'stdout frame needs id and data (a string)'),
  stderr: (v) => (isId(v.id) && isString(v.data) ? undefined : 'stderr frame needs id and data (a string)'),
  display: (v) => displayProblem(v),
  result: (v) => displayProblem(v),
  error: (v) =>
    isId(v.id) &&
    isString(v.ename) &&
    isString(v.evalue) &&
    Array.isArray(v.traceback) &&
    v.traceback.every(isString) &&
    optional(v.exitCode, isInt) &&
    optional(v.exitMessage, isString)
      ? undefined
      : 'error frame needs ename, evalue and traceback (strings), an integer exitCode and a string exitMessage if any',
  input_request: (v) =>
    isString(v.id) && isString(v.prompt) && isBoolean(v.password)
      ? undefined
      : 'input_request frame needs id, prompt and password',
  complete_reply: (v) =>
    isString(v.id) && Array.isArray(v.matches) && v.matches.every(isString) && isInt(v.start) && isInt(v.end)
      ? undefined
      : 'complete_reply frame needs id, matches, start and end',
  is_complete_reply: (v) =>
    isString(v.id) && COMPLETENESS.includes(v.status as CompletenessStatus) && optional(v.indent, isString)
      ? undefined
      : 'is_complete_reply frame needs id and status (complete, incomplete, invalid or unknown), indent a string',
  variables_reply: (v) =>
    isString(v.id) && Array.isArray(v.variables) && v.variables.every(isVariable) && isInt(v.total)
      ? undefined
      : 'variables_reply frame needs id, variables (name, type, summary, shape) and total',
  done: (v) =>
    isString(v.id) &&
    (v.status === 'ok' || v.status === 'error') &&
    isInt(v.executionCount) &&
    isBoolean(v.cancelled)
      ? undefined
      : 'done frame needs id, status, executionCount and cancelled',
};

function displayProblem(v: Record<string, unknown>): string | undefined {
  if (!isId(v.id) || !isObject(v.bundle)) return `${String(v.type)} frame needs id and bundle (an object)`;
  if (!optional(v.displayId, isString)) return 'displayId must be a string';
  if (!optional(v.update, isBoolean) || !optional(v.plainIsRepr, isBoolean))
    return 'update and plainIsRepr must be booleans';
  if (!optional(v.metadata, isObject)) return 'metadata must be an object';
  return undefined;
}

/** The frame types, in the order the protocol document lists them. */
export const FRAME_TYPES = Object.keys(FRAME_RULES) as FrameType[];

/** Checks a parsed line against the frame shapes; returns the frame, or the reason it is not one. */
export function validateFrame(value: unknown): Frame | string {
  if (!isObject(value)) return 'not a JSON object';
  const rule = FRAME_RULES[value.type as FrameType];
  if (!rule || !Object.hasOwn(FRAME_RULES, value.type as string))
    return `unknown frame type ${JSON.stringify(value.type)}`;
  if (!optional(value.sync, isSyncNumber)) return 'sync must be a non-negative integer';
  return rule(value) ?? (value as unknown as Frame);
}

/** What one line of the frame channel holds: a frame, or noise (not JSON, or not a frame). */
export type ParsedLine = { kind: 'frame'; frame: Frame } | { kind: 'noise'; line: string; reason: string };

export function parseFrameLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: 'noise', line, reason: 'not JSON' };
  }
  const frame = validateFrame(value);
  return typeof frame === 'string' ? { kind: 'noise', line, reason: frame } : { kind: 'frame', frame };
}
