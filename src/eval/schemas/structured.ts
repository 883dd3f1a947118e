/**
 * Structured output of agent() and completion(): the host parses the JSON in the answer (a
 * fenced ```json block is unwrapped) and checks it against the caller's schema with ajv (the
 * whole of JSON Schema, not a subset), so both kernels get the same verdict in the same words.
 * ajv is loaded and a schema compiled only when a call has one.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';

/**
 * The parsed output, or why there is none (the kernel raises it in the cell: a js kernel as a
 * SyntaxError when the output is not JSON, else a TypeError; Python as a ValueError).
 */
export type Structured = { data: unknown } | { schemaError: string; notJson?: true };

type AjvInstance = { compile(schema: unknown): ValidateFunction };
let ajv: Promise<AjvInstance> | undefined;
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 50;
const MAX_LISTED = 3;

async function validatorFor(schema: unknown): Promise<ValidateFunction> {
  const key = JSON.stringify(schema);
  const known = compiled.get(key);
  if (known) return known;
  ajv ??= import('ajv').then((m) => {
    const Ajv = (m.default as unknown as { default?: unknown }).default ?? m.default;
    return new (Ajv as new (opts: object) => AjvInstance)({ allErrors: true, strict: false });
  });
  const validate = (await ajv).compile(schema);
  if (compiled.size >= MAX_COMPILED) compiled.clear();
  compiled.set(key, validate);
  return validate;
}

/** The text without a surrounding ``` fence (```json ... ```). */
function unfenced(text: string): string {
  let body = text.trim();
  if (body.startsWith('```')) {
    const newline = body.indexOf('\n');
    body = newline === -1 ? '' : body.slice(newline + 1);
    const end = body.lastIndexOf('```');
    if (end !== -1) body = body.slice(0, end);
  }
  return body;
}

/** One of ajv's errors in a user's words: `missing name`, `/n must be number`. */
function describe(error: ErrorObject): string {
  const where = error.instancePath || '';
  if (error.keyword === 'required') {
    const name = (error.params as { missingProperty: string }).missingProperty;
    return where ? `${where}: missing ${name}` : `missing ${name}`;
  }
  return `${where || 'the output'} ${error.message ?? 'is not valid'}`;
}

/** Parses `text` and checks it against `schema`; `who` names the call in messages. */
export async function structuredOutput(text: string, schema: unknown, who: string): Promise<Structured> {
  let data: unknown;
  try {
    data = JSON.parse(unfenced(text));
  } catch (err) {
    return {
      schemaError: `${who} output is not JSON (${(err as Error).message}): ${JSON.stringify(text.slice(0, 200))}`,
      notJson: true,
    };
  }
  let validate: ValidateFunction;
  try {
    validate = await validatorFor(schema);
  } catch (err) {
    return {
      schemaError: `the schema given to ${who}() is not a valid JSON Schema: ${(err as Error).message}`,
    };
  }
  if (validate(data)) return { data };
  const errors = validate.errors ?? [];
  const listed = errors.slice(0, MAX_LISTED).map(describe);
  if (errors.length > MAX_LISTED) listed.push(`and ${errors.length - MAX_LISTED} more`);
  return { schemaError: `${who} output does not match the schema: ${listed.join('; ')}` };
}
