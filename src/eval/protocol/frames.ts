/**
 * Frames: what a kernel (runner.py or runner.cjs) sends the host, one JSON object per line. Every
 * frame that crosses the process boundary is checked here before anything else sees it.
 *
 * Any frame may carry `sync: n`: it completes barrier n of the kernel's raw output (markers.ts),
 * and the host passes it on only once the raw output written before the barrier has been.
 */

import { frameProblem } from '../schemas/index.js';
import type { Frame } from './wire.js';

// The frames' types are generated from src/eval/schemas/protocol.json, the one description of the
// wire format (scripts/gen-validators.mjs), as are the validators that check them.
export type {
  CompletenessStatus,
  CompleteReplyFrame,
  DoneFrame,
  ErrorFrame,
  Frame,
  IsCompleteReplyFrame,
  MimeBundle,
  VariableInfo,
  VariablesReplyFrame,
} from './wire.js';

export type FrameType = Frame['type'];

/** The frame types, in the order the protocol document lists them. */
export const FRAME_TYPES: FrameType[] = [
  'started',
  'stdout',
  'stderr',
  'display',
  'result',
  'error',
  'input_request',
  'complete_reply',
  'is_complete_reply',
  'variables_reply',
  'done',
];

/** Checks a parsed line against the frame shapes; returns the frame, or the reason it is not one. */
export function validateFrame(value: unknown): Frame | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  return frameProblem(value as Record<string, unknown>) ?? (value as Frame);
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
