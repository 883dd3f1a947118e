/**
 * The message spec (as ipykernel's tests/test_message_spec.py): each real runner, Python and
 * Node, runs cells that make every kind of frame; every line either runner writes on its frame
 * channel must pass the protocol module's validator, and every frame type (and every optional
 * field) must have been seen. Both runners have one descriptor layout (fd 1/2 raw output, fd 3
 * frames, fd 4 requests), key every frame, and write a marker on both raw streams for every
 * barrier a frame's `sync` names.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ensureRunnerFile } from '../../src/eval/launch/runnerFile.js';
import {
  completeRequest,
  encodeRequest,
  executeRequest,
  exitRequest,
  FRAME_TYPES,
  type Frame,
  initRequest,
  inputReply,
  isCompleteRequest,
  LineSplitter,
  type Request,
  validateFrame,
  variablesRequest,
} from '../../src/eval/protocol/index.js';
import { waitFor } from '../helpers/kernel.js';

const JS_RUNNER = fileURLToPath(new URL('../../src/js/runner.cjs', import.meta.url));
const KEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const MARKER = /\u0000omp-sync:([^:\u0000]*):([fr])(\d+)\u0000/g;

/** A runner spoken to directly: every line of its frame channel is kept, valid or not. */
function runner(language: 'py' | 'js') {
  const [executable, args] =
    language === 'py' ? ['python3', ['-u', ensureRunnerFile()]] : [process.execPath, [JS_RUNNER]];
  const child = spawn(executable as string, args as string[], {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
  });
  const frameStream = child.stdio[3] as NodeJS.ReadableStream;
  const requestStream = child.stdio[4] as NodeJS.WritableStream;
  const lines: unknown[] = [];
  const frames: Frame[] = [];
  const raw = { stdout: '', stderr: '' };
  const splitter = new LineSplitter();
  frameStream.on('data', (chunk: Buffer) => {
    for (const line of splitter.push(chunk)) {
      if (!line) continue;
      const value = JSON.parse(line);
      // Every frame carries the kernel's key (the host checks it and takes it off).
      expect(value.key).toBe(KEY);
      delete value.key;
      lines.push(value);
      const frame = validateFrame(value);
      if (typeof frame !== 'string') frames.push(frame);
    }
  });
  child.stdout?.setEncoding('utf8').on('data', (text: string) => {
    raw.stdout += text;
  });
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    raw.stderr += text;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const send = (request: Request) => requestStream.write(encodeRequest(request));
  const done = (id: string) =>
    waitFor(() => frames.some((f) => f.type === 'done' && f.id === id), 20_000, `done of ${id}`);
  return { lines, frames, raw, send, done, exited };
}

/** The markers on a raw stream, and the text around them. */
function markers(text: string) {
  const found = [...text.matchAll(MARKER)].map((m) => ({ key: m[1], kind: m[2], n: Number(m[3]) }));
  return { found, text: text.replace(MARKER, '') };
}

/** Every barrier is marked on both raw streams, in order, and every `f` barrier has its frame. */
function checkBarriers(r: ReturnType<typeof runner>) {
  const out = markers(r.raw.stdout);
  const err = markers(r.raw.stderr);
  expect(out.found.every((m) => m.key === KEY)).toBe(true);
  expect(out.found.map((m) => `${m.kind}${m.n}`)).toEqual(err.found.map((m) => `${m.kind}${m.n}`));
  const numbers = out.found.map((m) => m.n);
  expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  const withFrame = out.found.filter((m) => m.kind === 'f').map((m) => m.n);
  expect(r.frames.flatMap((f) => (f.sync === undefined ? [] : [f.sync]))).toEqual(withFrame);
  return { stdout: out.text, stderr: err.text };
}

/** Every line that did not pass the validator, with the reason. */
const invalid = (lines: unknown[]) =>
  lines.flatMap((value) => {
    const frame = validateFrame(value);
    return typeof frame === 'string' ? [{ value, reason: frame }] : [];
  });

const fieldsSeen = (frames: Frame[]) =>
  new Set(frames.flatMap((f) => Object.keys(f).map((key) => `${f.type}.${key}`)));

/** is_complete (a whole cell, an open one) and variables, answered by their reply frames. */
async function queries(r: ReturnType<typeof runner>) {
  r.send(isCompleteRequest('whole', '1 + 1'));
  r.send(isCompleteRequest('open', 'f(1,'));
  r.send(variablesRequest('names', 50));
  await waitFor(() => r.frames.some((f) => f.type === 'variables_reply'), 60_000, 'variables_reply');
  const replies = r.frames.filter((f) => f.type === 'is_complete_reply');
  expect(replies).toContainEqual(expect.objectContaining({ id: 'whole', status: 'complete' }));
  expect(replies).toContainEqual(expect.objectContaining({ id: 'open', status: 'incomplete' }));
}

describe('message spec: every frame each runner sends is valid', () => {
  it('runner.py', async () => {
    const r = runner('py');
    r.send(initRequest('init', '', process.cwd(), undefined, KEY));
    await r.done('init');
    const cells: [string, string][] = [
      ['streams', 'import sys\nprint("out")\nprint("err", file=sys.stderr)'],
      ['display', 'h = display("first", display_id="d1")\nupdate_display("second", display_id="d1")'],
      ['repr', 'class T:\n    def _repr_html_(self):\n        return "<b>t</b>"\ndisplay(T())'],
      ['result', '6 * 7'],
      ['error', '1 / 0'],
      ['metadata', 'display({"text/plain": "wide"}, raw=True, metadata={"text/plain": {"width": 2}})'],
    ];
    for (const [id, code] of cells) {
      r.send(executeRequest(id, code));
      await r.done(id);
    }
    r.send(executeRequest('input', 'input("name? ")', { allowStdin: true }));
    await waitFor(() => r.frames.some((f) => f.type === 'input_request'), 60_000, 'input_request');
    r.send(inputReply('input', 'Ada'));
    await r.done('input');
    r.send(completeRequest('complete', 'pri', 3));
    await waitFor(() => r.frames.some((f) => f.type === 'complete_reply'), 60_000, 'complete_reply');
    await queries(r);
    r.send({ type: 'bogus' } as unknown as Request); // answered with a ProtocolError frame
    r.send(exitRequest());
    expect(await r.exited).toBe(0);
    expect(invalid(r.lines)).toEqual([]);
    // Output is raw (fd 1 and fd 2): every other frame type.
    expect(new Set(r.frames.map((f) => f.type))).toEqual(
      new Set(FRAME_TYPES.filter((t) => t !== 'stdout' && t !== 'stderr')),
    );
    const fields = fieldsSeen(r.frames);
    for (const field of [
      'display.displayId',
      'display.update',
      'display.plainIsRepr',
      'display.metadata',
      'error.traceback',
      'is_complete_reply.indent',
      'started.sync',
      'done.sync',
    ])
      expect(fields).toContain(field);
    const output = checkBarriers(r);
    expect(output.stdout).toBe('out\n');
    expect(output.stderr).toBe('err\n');
    expect(r.frames).toContainEqual(
      expect.objectContaining({ type: 'error', id: null, ename: 'ProtocolError' }),
    );
  });

  it('runner.cjs', async () => {
    const r = runner('js');
    r.send(initRequest('init', '', process.cwd(), undefined, KEY));
    await r.done('init');
    const cells: [string, string][] = [
      ['streams', 'console.log("out"); console.error("err")'],
      ['display', 'display("first", {displayId: "d1"}); display("second", {displayId: "d1", update: true})'],
      ['raw', 'display({"text/markdown": "# hi"}, {raw: true})'],
      ['result', '6 * 7'],
      ['error', 'null.x'],
      ['exit', 'process.exit(3)'],
    ];
    for (const [id, code] of cells) {
      r.send(executeRequest(id, code));
      await r.done(id);
    }
    r.send(completeRequest('complete', 'Mat', 3));
    await waitFor(() => r.frames.some((f) => f.type === 'complete_reply'), 60_000, 'complete_reply');
    await queries(r);
    r.send(exitRequest());
    expect(await r.exited).toBe(0);
    expect(invalid(r.lines)).toEqual([]);
    // The js kernel has no input(): every other frame type.
    expect(new Set(r.frames.map((f) => f.type))).toEqual(
      new Set(FRAME_TYPES.filter((t) => t !== 'input_request')),
    );
    const fields = fieldsSeen(r.frames);
    for (const field of [
      'display.displayId',
      'display.update',
      'done.sync',
      'started.sync',
      'error.exitCode',
      'is_complete_reply.indent',
    ])
      expect(fields).toContain(field);
    checkBarriers(r);
    expect(r.frames).toContainEqual(
      expect.objectContaining({ type: 'error', ename: 'ProcessExit', exitCode: 3 }),
    );
  });

  it('the validator refuses frames that break the spec', () => {
    expect(
      validateFrame({
        type: 'done',
        id: 'x',
        status: 'ok',
        executionCount: 1,
        cancelled: false,
        sync: 'yes',
      }),
    ).toMatch(/sync must be/);
    expect(validateFrame({ type: 'started', id: 'x', sync: -1 })).toMatch(/sync must be/);
    expect(
      validateFrame({ type: 'error', id: null, ename: 'E', evalue: '', traceback: [], exitCode: 1.5 }),
    ).toMatch(/exitCode/);
    expect(validateFrame({ type: 'display', id: null, bundle: {}, displayId: 3 })).toMatch(/displayId/);
    expect(validateFrame({ type: 'input_request', id: 'x', prompt: '' })).toMatch(/password/);
    expect(validateFrame({ type: 'toString' })).toMatch(/unknown frame type/);
    expect(validateFrame({ type: 'display', id: null, bundle: {}, metadata: [] })).toMatch(/metadata/);
    expect(validateFrame({ type: 'is_complete_reply', id: 'x', status: 'maybe' })).toMatch(/status/);
    expect(
      validateFrame({ type: 'variables_reply', id: 'x', variables: [{ name: 'a', type: 'int' }], total: 1 }),
    ).toMatch(/variables_reply/);
  });
});
