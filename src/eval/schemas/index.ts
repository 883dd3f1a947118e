/**
 * Every JSON shape that crosses a boundary into the engine (the eval tool's input, the config
 * file, the kernels' frames, bridge calls and their payloads) is checked by one JSON Schema
 * validator: ajv, whose validators are compiled ahead of time from schemas.json and protocol.json
 * (scripts/gen-validators.mjs), so nothing is compiled at start-up. This module turns ajv's errors into messages a user can act on.
 */

import type { SchemaError, Validator } from './validators.js';
import * as compiled from './validators.js';

/** A short description of a value for messages: `"text"`, `null`, `an array`, `number`... */
function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `"${v.slice(0, 40)}"`;
  // (A number's value: a timeout of -5 or 0 is wrong by its value, not its type.)
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return typeof v;
}

/** The errors of one validation, or none. */
function errorsOf(validate: Validator, value: unknown): SchemaError[] {
  return validate(value) ? [] : [...(validate.errors ?? [])];
}

/** The value at a JSON pointer such as `/cells/0/code`. */
function at(value: unknown, pointer: string): unknown {
  let node = value;
  for (const key of pointer.split('/').slice(1)) {
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

const CELL_FIELDS = ['language', 'code', 'title', 'timeout', 'reset'];
const CELL_RULES: Record<string, string> = {
  language: 'must be "py" or "js"',
  code: 'must be a string',
  title: 'must be a string',
  timeout: 'must be a positive number of seconds (clamped to 1..3600)',
  reset: 'must be true or false',
};

/** One problem of the tool's input as a message, and where it sorts. */
function toolProblem(input: unknown, error: SchemaError): { rank: number[]; text: string } {
  const path = error.instancePath.split('/').slice(1);
  if (path.length === 0) {
    if (error.keyword === 'additionalProperties')
      return {
        rank: [-1, 0],
        text: `unknown field "${error.params.additionalProperty}" (only "cells" is accepted)`,
      };
    return {
      rank: [-1, 1],
      text: `"cells" must be an array of cells, got ${describeValue(at(input, '/cells'))}`,
    };
  }
  if (path.length === 1) {
    if (error.keyword === 'minItems')
      return { rank: [-1, 2], text: '"cells" must contain at least one cell' };
    return {
      rank: [-1, 1],
      text: `"cells" must be an array of cells, got ${describeValue(at(input, '/cells'))}`,
    };
  }
  const index = Number(path[1]);
  const cell = `cells[${index}]`;
  if (path.length === 2 && error.keyword === 'type')
    return {
      rank: [index, -1],
      text: `${cell} must be an object with "language" and "code", got ${describeValue(at(input, error.instancePath))}`,
    };
  if (path.length === 2 && error.keyword === 'additionalProperties')
    return {
      rank: [index, 0],
      text: `${cell} has unknown field "${error.params.additionalProperty}" (allowed: ${CELL_FIELDS.join(', ')})`,
    };
  const field = path.length === 2 ? String(error.params.missingProperty) : (path[2] as string);
  const value = at(input, `/cells/${index}/${field}`);
  return {
    rank: [index, 1 + CELL_FIELDS.indexOf(field)],
    text: `${cell}.${field} ${CELL_RULES[field]}, got ${value === undefined ? 'nothing' : describeValue(value)}`,
  };
}

/** The problems of the eval tool's input (`{cells: [...]}`), in the order of the input. */
export function toolInputProblems(input: unknown): string[] {
  if (!input || typeof input !== 'object' || Array.isArray(input))
    return [`the input must be an object like {"cells": [...]}, got ${describeValue(input)}`];
  const problems = errorsOf(compiled.toolInput, input).map((e) => toolProblem(input, e));
  problems.sort(
    (a, b) => (a.rank[0] as number) - (b.rank[0] as number) || (a.rank[1] as number) - (b.rank[1] as number),
  );
  return [...new Set(problems.map((p) => p.text))];
}

/** The settings whose values do not fit their schema (a flattened settings object), with the rule each breaks. */
export function settingsProblems(flat: Record<string, unknown>): { key: string; known: boolean }[] {
  const seen = new Set<string>();
  const out: { key: string; known: boolean }[] = [];
  for (const error of errorsOf(compiled.settings, flat)) {
    const unknown = error.keyword === 'additionalProperties';
    const key = unknown ? String(error.params.additionalProperty) : decodePointer(error.instancePath);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ key, known: !unknown });
  }
  return out;
}

/** The first segment of a JSON pointer, unescaped (`~1` is `/`, `~0` is `~`). */
function decodePointer(pointer: string): string {
  return (pointer.split('/')[1] ?? '').replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The validator of each frame type (protocol.json's definitions, compiled). */
const FRAME_VALIDATORS: Record<string, Validator> = {
  started: compiled.StartedFrame,
  stdout: compiled.StreamFrame,
  stderr: compiled.StreamFrame,
  display: compiled.DisplayFrame,
  result: compiled.DisplayFrame,
  error: compiled.ErrorFrame,
  input_request: compiled.InputRequestFrame,
  complete_reply: compiled.CompleteReplyFrame,
  is_complete_reply: compiled.IsCompleteReplyFrame,
  variables_reply: compiled.VariablesReplyFrame,
  done: compiled.DoneFrame,
};

/** What is wrong with a frame from a kernel (an object), or undefined when it fits protocol.json. */
export function frameProblem(value: Record<string, unknown>): string | undefined {
  const type = value.type;
  const validate =
    typeof type === 'string' && Object.hasOwn(FRAME_VALIDATORS, type) && FRAME_VALIDATORS[type];
  if (!validate) return `unknown frame type ${JSON.stringify(type)}`;
  const errors = errorsOf(validate, value).map((e) =>
    e.keyword === 'additionalProperties'
      ? { ...e, message: `has an unknown field "${e.params.additionalProperty}"` }
      : e,
  );
  return errors.length ? `${type} frame: ${formatErrors(errors)}` : undefined;
}

/**
 * The eval tool's input (`{cells: [...]}`, each cell inline, with descriptions) as a JSON Schema:
 * the one `toolInputProblems` checks, and the MCP eval tool's inputSchema (with its `session`).
 */
export const toolInputSchema = compiled.toolInputSchema;

/** What is wrong with a bridge call from a kernel, or undefined when it is well formed. */
export function validateBridgeCall(value: unknown): string | undefined {
  const errors = errorsOf(compiled.bridgeCall, value);
  return errors.length ? `invalid bridge call: ${formatErrors(errors)}` : undefined;
}

/** What is wrong with the payload of an agent() or completion() call, or undefined. */
/** Whether a bridge line is the kernel giving up on a call: `{"cancel": id}`. */
export function isBridgeCancel(value: unknown): value is { cancel: number } {
  return compiled.bridgeCancel(value);
}

export function bridgePayloadProblem(kind: string, payload: unknown): string | undefined {
  const validate =
    kind === 'agent' ? compiled.agentPayload : kind === 'completion' ? compiled.completionPayload : undefined;
  if (!validate) return undefined;
  const errors = errorsOf(validate, payload);
  return errors.length ? `${kind}() was called with ${formatErrors(errors)}` : undefined;
}

/** ajv's errors as one line: `prompt must be string; model must be string,null`. */
function formatErrors(errors: SchemaError[]): string {
  return errors
    .map((e) => {
      const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : 'the object';
      return `${where} ${e.message ?? e.keyword}`;
    })
    .join('; ');
}
