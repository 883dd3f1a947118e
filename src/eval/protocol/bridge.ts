/**
 * The bridge: calls from a Python kernel's agent() and completion() to the host, on fd 3 (a
 * socket pair), one JSON line each way. The kernel sends `{id, kind, cell, payload}`; the host
 * answers `{id, ok: true, value}` or `{id, ok: false, error}`.
 */
import { validateBridgeCall } from '../schemas/index.js';

export interface BridgeCall {
  /** The kernel's number for the call, echoed in the reply. */
  id: number;
  kind: string;
  /** The cell that made the call (null from a thread between cells). */
  cell: string | null;
  payload: Record<string, unknown>;
}

export type BridgeReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

/** What a bridge handler is asked: the call's kind and payload. */
export interface BridgeRequest {
  kind: string;
  payload: Record<string, unknown>;
  /** The cell that made the call, as the kernel attributes it (null: none, e.g. a stray thread). */
  cell?: string | null;
}

/** Answers one bridge call; `signal` aborts when the cell is interrupted or the kernel stops. */
export type BridgeHandler = (request: BridgeRequest, signal: AbortSignal) => Promise<unknown>;

/** A parsed bridge line: the call, or why it is not one (with its id when it has one, to answer). */
export type ParsedBridgeCall = { call: BridgeCall } | { problem: string; id?: number };

export function parseBridgeCall(line: string): ParsedBridgeCall {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { problem: 'a bridge call that is not JSON' };
  }
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
