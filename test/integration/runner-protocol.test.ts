import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ensureRunnerFile } from '../../src/eval/launch/runnerFile.js';
import { type Frame, LineSplitter, parseFrameLine } from '../../src/eval/protocol/index.js';
import { deadlineIn } from '../helpers/kernel.js';

/**
 * Talks to runner.py directly, without the kernel client, to see exactly what it sends: frames on
 * fd 3 (no init request with a key here, so none carries a key or a barrier), requests on fd 4,
 * the raw output on fd 1 and fd 2.
 */
function rawRunner() {
  const child = spawn('python3', ['-u', ensureRunnerFile()], {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
  });
  const frames: Frame[] = [];
  const noise: string[] = [];
  const raw = { stdout: '' };
  const splitter = new LineSplitter();
  (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
    for (const line of splitter.push(chunk)) {
      if (!line) continue; // every frame starts a line of its own
      const parsed = parseFrameLine(line);
      if (parsed.kind === 'frame') frames.push(parsed.frame);
      else noise.push(line);
    }
  });
  child.stdout?.setEncoding('utf8').on('data', (text: string) => {
    raw.stdout += text;
  });
  child.stderr?.resume();
  const requests = child.stdio[4] as NodeJS.WritableStream;
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const until = async (predicate: () => boolean) => {
    const deadline = deadlineIn(60_000);
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`no such frame yet: ${JSON.stringify(frames)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  return {
    child,
    frames,
    noise,
    raw,
    exited,
    until,
    send: (line: string) => requests.write(`${line}\n`),
    end: () => requests.end(),
  };
}

describe('runner.py protocol', () => {
  it('answers malformed requests with ProtocolError frames and keeps serving', async () => {
    const r = rawRunner();
    r.send('this is not json');
    r.send('[1, 2, 3]');
    r.send('{"type": "launch_missiles"}');
    r.send('{"code": "1"}');
    r.send('{"id": "bad", "code": 42}');
    r.send('');
    r.send('{"id": "ok", "code": "40 + 2", "silent": false, "storeHistory": true}');
    await r.until(() => r.frames.some((f) => f.type === 'done' && f.id === 'ok'));
    const errors = r.frames.filter((f) => f.type === 'error');
    expect(errors.map((f) => f.type === 'error' && f.ename)).toEqual(Array(5).fill('ProtocolError'));
    expect(errors.map((f) => f.type === 'error' && f.evalue)).toEqual([
      expect.stringMatching(/not valid JSON/),
      'request must be a JSON object, got list',
      "unknown request type 'launch_missiles'",
      'request needs an id (a string of 1 to 1024 characters)',
      "request 'bad': code must be a string",
    ]);
    expect(r.frames.find((f) => f.type === 'done' && f.id === 'bad')).toMatchObject({ status: 'error' });
    expect(r.frames.find((f) => f.type === 'result')).toMatchObject({
      id: 'ok',
      bundle: { 'text/plain': '42' },
    });
    expect(r.frames.find((f) => f.type === 'done' && f.id === 'ok')).toMatchObject({ executionCount: 1 });
    expect(r.noise).toEqual([]);
    r.send('{"type": "exit"}');
    expect(await r.exited).toBe(0);
  });

  it('sends started, result and done in order for one request, and its output on fd 1', async () => {
    const r = rawRunner();
    r.send(JSON.stringify({ id: 'a', code: 'print("hi")\n7', silent: false, storeHistory: true }));
    await r.until(() => r.frames.some((f) => f.type === 'done'));
    expect(r.frames).toEqual([
      { type: 'started', id: 'a' },
      { type: 'result', id: 'a', bundle: { 'text/plain': '7' } },
      { type: 'done', id: 'a', status: 'ok', executionCount: 1, cancelled: false },
    ]);
    await r.until(() => r.raw.stdout === 'hi\n');
    r.end();
    expect(await r.exited).toBe(0);
  });

  it('applies cwd and env from the request', async () => {
    const r = rawRunner();
    r.send(
      JSON.stringify({
        id: 'i',
        code: '',
        silent: true,
        storeHistory: false,
        cwd: '/tmp',
        env: { OMP_T: 'v' },
      }),
    );
    r.send(
      JSON.stringify({
        id: 'a',
        code: 'import os, sys\n(os.getcwd(), os.environ["OMP_T"], sys.path[0])',
        silent: false,
        storeHistory: true,
      }),
    );
    await r.until(() => r.frames.some((f) => f.type === 'done' && f.id === 'a'));
    expect(r.frames.find((f) => f.type === 'result')).toMatchObject({
      bundle: { 'text/plain': "('/tmp', 'v', '/tmp')" },
    });
    r.end();
    await r.exited;
  });
});
