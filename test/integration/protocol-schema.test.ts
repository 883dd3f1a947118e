/**
 * Both runners against the one protocol document (src/eval/schemas/protocol.json): malformed
 * requests are made from the schema itself (each required field missing, each field of a wrong
 * type, nested ones too, strings past their maxLength, an unknown type), sent to the real Python
 * and Node runners, and each must be answered as the schema's Request says: an error frame
 * (ProtocolError, the request's id if valid, else null), a done frame (status error) after an
 * execute request with a valid id, nothing else; an input_reply outside an input() wait is
 * dropped. A request after each shows the kernel goes on, and every frame fits the schema.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRunnerFile } from '../../src/eval/launch/runnerFile.js';
import {
  encodeRequest,
  initRequest,
  isCompleteRequest,
  LineSplitter,
  validateFrame,
} from '../../src/eval/protocol/index.js';
import { waitFor } from '../helpers/kernel.js';

type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  const?: unknown;
  default?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  maxLength?: number;
  minLength?: number;
};

const PROTOCOL = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../src/eval/schemas/protocol.json', import.meta.url)), 'utf8'),
) as { $defs: Record<string, Schema & { oneOf?: Schema[] }> };
const KEY = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';
const JS_RUNNER = fileURLToPath(new URL('../../src/js/runner.cjs', import.meta.url));

const resolve = (schema: Schema): Schema =>
  schema.$ref ? resolve(PROTOCOL.$defs[schema.$ref.replace('#/$defs/', '')] as Schema) : schema;

/** The least value that fits a schema (a required field's `default`, else the simplest of its type). */
function minimal(raw: Schema): unknown {
  const schema = resolve(raw);
  if ('const' in schema) return schema.const;
  if ('default' in schema) return schema.default;
  const type = [schema.type].flat()[0];
  if (type === 'string') return 'x'.repeat(schema.minLength ?? 0);
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  if (type === 'object')
    return Object.fromEntries(
      (schema.required ?? []).map((key) => [key, minimal(schema.properties?.[key] ?? {})]),
    );
  return null;
}

/** A value of none of the schema's types. */
function wrongType(raw: Schema): unknown {
  const types = [resolve(raw).type].flat();
  const candidates: [string, unknown][] = [
    ['string', 42],
    ['integer', 1.5],
    ['boolean', 'yes'],
    ['object', ['a list']],
    ['array', { an: 'object' }],
  ];
  const fits = (value: unknown) =>
    types.some(
      (t) =>
        (t === 'string' && typeof value === 'string') ||
        ((t === 'integer' || t === 'number') &&
          typeof value === 'number' &&
          (t === 'number' || Number.isInteger(value))) ||
        (t === 'boolean' && typeof value === 'boolean') ||
        (t === 'array' && Array.isArray(value)) ||
        (t === 'object' && typeof value === 'object' && value !== null && !Array.isArray(value)) ||
        (t === 'null' && value === null),
    );
  for (const [type, value] of candidates) if (types.includes(type) && !fits(value)) return value;
  return types.includes('string') ? true : 'a string';
}

interface Variant {
  what: string;
  value: unknown;
  /** The request still carries this valid id. */
  id?: string;
}

/**
 * The malformed forms of a value of `schema` (each required field missing, each field of a wrong
 * type, each nested field's malformed forms, strings past maxLength or under minLength), each with
 * the path it breaks. A missing field with a default is not malformed: the runners take it.
 */
function malformed(raw: Schema, value: unknown, path: string): { what: string; value: unknown }[] {
  const schema = resolve(raw);
  const out: { what: string; value: unknown }[] = [];
  if (typeof value === 'string') {
    if (schema.maxLength !== undefined)
      out.push({ what: `${path} past maxLength`, value: 'y'.repeat(schema.maxLength + 1) });
    if (schema.minLength) out.push({ what: `${path} under minLength`, value: '' });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    if (Array.isArray(value) && schema.items && 'type' in resolve(schema.items))
      out.push({ what: `${path}[0] of a wrong type`, value: [wrongType(schema.items)] });
    return out;
  }
  const record = value as Record<string, unknown>;
  for (const key of schema.required ?? []) {
    const field = resolve(schema.properties?.[key] ?? {});
    // (a request without `type` is an execute request, as Request says: the unknown type stands
    // for a broken `type`)
    if ('default' in field || 'const' in field) continue;
    const { [key]: _, ...rest } = record;
    out.push({ what: `${path}.${key} missing`, value: rest });
  }
  for (const [key, field] of Object.entries(schema.properties ?? {})) {
    if ('const' in resolve(field)) continue;
    out.push({ what: `${path}.${key} of a wrong type`, value: { ...record, [key]: wrongType(field) } });
    const inner = record[key] ?? minimal(field);
    for (const v of malformed(field, inner, `${path}.${key}`))
      out.push({ ...v, value: { ...record, [key]: v.value } });
  }
  if (typeof schema.additionalProperties === 'object')
    out.push({
      what: `${path}'s value of a wrong type`,
      value: { ...record, NAME: wrongType(schema.additionalProperties) },
    });
  return out;
}

/** Every malformed request the schema makes, with the valid id it keeps (if it does). */
function malformedRequests(): Variant[] {
  const requestTypes = (PROTOCOL.$defs.Request?.oneOf ?? []).map(resolve);
  const out: Variant[] = [];
  let n = 0;
  for (const schema of requestTypes) {
    const type = schema.properties?.type?.const as string;
    const id = `${type}-${n++}`;
    const base = {
      ...(minimal(schema) as Record<string, unknown>),
      ...('id' in (schema.properties ?? {}) ? { id } : {}),
    };
    for (const v of malformed(schema, base, type)) {
      const kept = (v.value as Record<string, unknown>).id;
      out.push({ what: v.what, value: v.value, ...(kept === id ? { id } : {}) });
    }
    out.push({
      what: `${type} with an unknown type`,
      value: { ...base, type: `${type}_unknown` },
      ...('id' in base ? { id } : {}),
    });
  }
  return out;
}

/** A runner spoken to directly; every frame is kept, valid or not. */
function runner(language: 'py' | 'js') {
  const [executable, args] =
    language === 'py' ? ['python3', ['-u', ensureRunnerFile()]] : [process.execPath, [JS_RUNNER]];
  const child = spawn(executable as string, args as string[], {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
  });
  const frames: Record<string, unknown>[] = [];
  const splitter = new LineSplitter();
  (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
    for (const line of splitter.push(chunk)) if (line) frames.push(JSON.parse(line));
  });
  child.stdout?.resume();
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  const exited = new Promise<number | null>((r) => child.on('close', r));
  const write = (value: unknown) =>
    (child.stdio[4] as NodeJS.WritableStream).write(encodeRequest(value as never));
  return { child, frames, write, exited, stderr: () => stderr };
}

/** What a runner answered to a malformed request: the frames before the reply to the request after it. */
async function answer(r: ReturnType<typeof runner>, variant: Variant, n: number) {
  const from = r.frames.length;
  r.write(variant.value);
  const probe = `probe-${n}`;
  r.write(isCompleteRequest(probe, '1'));
  await waitFor(
    () => r.frames.some((f) => f.type === 'is_complete_reply' && f.id === probe),
    30_000,
    `the kernel answers after ${variant.what} (stderr: ${r.stderr().slice(-500)})`,
  );
  const until = r.frames.findIndex((f) => f.type === 'is_complete_reply' && f.id === probe);
  return r.frames.slice(from, until);
}

/** What the schema's Request says the answer to a malformed request is. */
function expected(variant: Variant): unknown[] {
  const type = (variant.value as { type?: unknown }).type;
  if (type === 'input_reply') return []; // dropped outside an input() wait
  const error = { type: 'error', id: variant.id ?? null, ename: 'ProtocolError' };
  if (type === 'execute' && variant.id)
    return [error, { type: 'done', id: variant.id, status: 'error', cancelled: false }];
  return [error];
}

const VARIANTS = malformedRequests();

describe.each(['py', 'js'] as const)(
  'the %s runner answers every malformed request the schema makes',
  (language) => {
    let r: ReturnType<typeof runner>;
    beforeAll(async () => {
      r = runner(language);
      r.write(initRequest('init', '', process.cwd(), undefined, KEY));
      await waitFor(() => r.frames.some((f) => f.type === 'done' && f.id === 'init'), 60_000, 'init');
    });
    afterAll(async () => {
      r.write({ type: 'exit' });
      expect(await r.exited).toBe(0);
    });

    it('makes enough of them to cover every request type', () => {
      expect(VARIANTS.length).toBeGreaterThan(40);
      for (const type of ['execute', 'input_reply', 'complete', 'is_complete', 'variables', 'exit'])
        expect(VARIANTS.some((v) => (v.value as { type: string }).type === `${type}_unknown`)).toBe(true);
    });

    it('with a ProtocolError (or as documented), goes on, and sends only frames that fit the schema', async () => {
      const got: { what: string; frames: unknown[] }[] = [];
      const want: { what: string; frames: unknown[] }[] = [];
      for (const [n, variant] of VARIANTS.entries()) {
        const frames = await answer(r, variant, n);
        const invalid = frames.flatMap((f) => {
          const problem = validateFrame(f);
          return typeof problem === 'string' ? [problem] : [];
        });
        got.push({ what: variant.what, frames: [...frames.map(({ key, sync, ...f }) => f), ...invalid] });
        want.push({
          what: variant.what,
          frames: expected(variant).map((f) => expect.objectContaining(f as object)),
        });
      }
      expect(got).toEqual(want);
      // Each frame carried the kernel's key.
      expect(r.frames.every((f) => f.key === KEY)).toBe(true);
      expect(r.frames.filter((f) => typeof validateFrame(f) === 'string')).toEqual([]);
    });
  },
);
