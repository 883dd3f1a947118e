/**
 * The message spec (as ipykernel's tests/test_message_spec.py): each real runner, Python and
 * Node, runs cells that make every kind of frame; every line either runner writes on its frame
 * channel must pass the protocol module's validator, and every frame type (and every optional
 * field) must have been seen.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ensureRunnerFile } from '../../src/eval/kernel/runnerFile.js';
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
const JS_KEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

/** A runner spoken to directly: every line of its frame channel is kept, valid or not. */
function runner(language: 'py' | 'js') {
  const child =
    language === 'py'
      ? spawn('python3', ['-u', ensureRunnerFile()], { stdio: ['pipe', 'pipe', 'pipe'] })
      : spawn(process.execPath, [JS_RUNNER], {
          stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
        });
  const frameStream = language === 'py' ? child.stdout : child.stdio[3];
  const requestStream = language === 'py' ? child.stdin : child.stdio[4];
  const lines: unknown[] = [];
  const frames: Frame[] = [];
  const splitter = new LineSplitter();
  frameStream?.on('data', (chunk: Buffer) => {
    for (const line of splitter.push(chunk)) {
      if (!line) continue;
      const value = JSON.parse(line);
      // The js runner keys every frame (the host checks and strips the key).
      if (language === 'js') {
        expect(value.key).toBe(JS_KEY);
        delete value.key;
      }
      lines.push(value);
      const frame = validateFrame(value);
      if (typeof frame !== 'string') frames.push(frame);
    }
  });
  child.stdout?.resume();
  child.stderr?.resume();
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const send = (request: Request) => (requestStream as NodeJS.WritableStream).write(encodeRequest(request));
  const done = (id: string) =>
    waitFor(() => frames.some((f) => f.type === 'done' && f.id === id), 20_000, `done of ${id}`);
  return { lines, frames, send, done, exited };
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
    r.send(initRequest('init', '', process.cwd()));
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
    expect(new Set(r.frames.map((f) => f.type))).toEqual(new Set(FRAME_TYPES));
    const fields = fieldsSeen(r.frames);
    for (const field of [
      'display.displayId',
      'display.update',
      'display.plainIsRepr',
      'display.metadata',
      'error.traceback',
      'is_complete_reply.indent',
    ])
      expect(fields).toContain(field);
    expect(r.frames).toContainEqual(
      expect.objectContaining({ type: 'error', id: null, ename: 'ProtocolError' }),
    );
  });

  it('runner.cjs', async () => {
    const r = runner('js');
    r.send(initRequest('init', '', process.cwd(), undefined, JS_KEY));
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
      'done.rawSync',
      'error.exitCode',
      'is_complete_reply.indent',
    ])
      expect(fields).toContain(field);
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
        rawSync: 'yes',
      }),
    ).toMatch(/done frame/);
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
