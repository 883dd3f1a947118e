/**
 * The bridge: calls from a kernel's agent() and completion() to the host, on a socket pair, one
 * JSON line each way. The kernel sends `{id, kind, cell, payload}`, and `{cancel: id}` when it
 * gives up waiting for a call (its timeout); the host answers `{id, ok: true, value}` or
 * `{id, ok: false, error}`. A line is at most MAX_BRIDGE_CALL_CHARS long (both sides check).
 */
import { isBridgeCancel, validateBridgeCall } from '../schemas/index.js';

/** The longest bridge call line (16 MiB); the Python kernel's bridge.py checks the same number. */
export const MAX_BRIDGE_CALL_CHARS = 16 * 1024 * 1024;

interface BridgeCall {
  /** The kernel's number for the call, echoed in the reply. */
  id: number;
  kind: string;
  /** The cell that made the call (null from a thread between cells). */
  cell: string | null;
  payload: Record<string, unknown>;
}

export type BridgeReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

/** What a bridge handler is asked: the call's kind and payload. */
interface BridgeRequest {
  kind: string;
  payload: Record<string, unknown>;
  /** The cell that made the call, as the kernel attributes it (null: none, e.g. a stray thread). */
  cell?: string | null;
}

/** Answers one bridge call; `signal` aborts when the cell is interrupted or the kernel stops. */
export type BridgeHandler = (request: BridgeRequest, signal: AbortSignal) => Promise<unknown>;

/**
 * A parsed bridge line: the call, the id of a call the kernel gave up on, or why it is neither
 * (with its id when it has one, to answer).
 */
export type ParsedBridgeCall = { call: BridgeCall } | { cancel: number } | { problem: string; id?: number };

export function parseBridgeCall(line: string): ParsedBridgeCall {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { problem: 'a bridge call that is not JSON' };
  }
  if (isBridgeCancel(value)) return { cancel: value.cancel };
  const problem = validateBridgeCall(value);
  if (problem === undefined) return { call: value as BridgeCall };
  const id = (value as { id?: unknown } | null)?.id;
  return Number.isInteger(id) ? { problem, id: id as number } : { problem };
}

export const bridgeReply = (id: number, value: unknown): BridgeReply => ({ id, ok: true, value });
export const bridgeError = (id: number, error: string): BridgeReply => ({ id, ok: false, error });

export function encodeBridgeReply(reply: BridgeReply): string {
  return `${JSON.stringify(reply)}\n`;
}
