/**
 * The JavaScript kernel's channel (issue 14, items 12 and 13): requests are validated as
 * src/py/server.py validates them, and frames a cell writes to the frame channel are never taken
 * for the runner's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/eval/protocol/index.js';
import { run, startKernel, waitFor } from '../helpers/kernel.js';

const RUNNER = fileURLToPath(new URL('../../src/js/runner.cjs', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** The runner on its own, with the host's fds: raw request lines in, parsed frames out. */
function rawRunner() {
  const child = spawn(process.execPath, [RUNNER], {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  for (const stream of child.stdio) stream?.on('error', () => {});
  const frames: Record<string, unknown>[] = [];
  const splitter = new LineSplitter();
  child.stdio[3]?.on('data', (chunk: Buffer) => {
    for (const line of splitter.push(chunk)) if (line.trim()) frames.push(JSON.parse(line));
  });
  const send = (line: string) => (child.stdio[4] as NodeJS.WritableStream).write(`${line}\n`);
  return { child, frames, send };
}

describe('js runner: request validation (as server.py)', () => {
  it('answers malformed requests with a ProtocolError frame and goes on', async () => {
    const { frames, send } = rawRunner();
    send(
      JSON.stringify({ id: 'init', code: '', silent: true, storeHistory: false, init: true, frameKey: 'K' }),
    );
    for (const line of [
      'not json',
      '[1]',
      '42',
      '{"type": "bogus", "id": "b1"}',
      '{"type": 7}',
      '{"code": "1 + 1"}',
      '{"id": "", "code": "1"}',
      '{"id": "c1", "code": 5}',
      '{"type": "complete", "id": "q1", "code": 5}',
      '{"type": "input_reply", "id": "late", "value": "x"}',
    ])
      send(line);
    send(JSON.stringify({ id: 'ok', code: '6 * 7', silent: false, storeHistory: true }));
    await waitFor(() => frames.some((f) => f.type === 'done' && f.id === 'ok'), 60_000, 'the valid cell');
    const errors = frames.filter((f) => f.ename === 'ProtocolError').map((f) => [f.id, f.evalue]);
    expect(errors).toEqual([
      [null, expect.stringMatching(/^request is not valid JSON: /)],
      [null, 'request must be a JSON object, got array'],
      [null, 'request must be a JSON object, got number'],
      ['b1', "unknown request type 'bogus'"],
      [null, 'unknown request type 7'],
      [null, 'request needs an id (a string of 1 to 1024 characters)'],
      [null, 'request needs an id (a string of 1 to 1024 characters)'],
      ['c1', "request 'c1': code must be a string"],
      ['q1', 'complete needs id and code (strings) and cursor (an integer)'],
    ]);
    // Only the init and the valid cell ran; the one with bad code ended with done (as in Python).
    expect(frames.filter((f) => f.type === 'started').map((f) => f.id)).toEqual(['init', 'ok']);
    expect(frames.filter((f) => f.type === 'done').map((f) => [f.id, f.status])).toEqual([
      ['init', 'ok'],
      ['c1', 'error'],
      ['ok', 'ok'],
    ]);
    expect(frames.find((f) => f.type === 'result')).toMatchObject({
      id: 'ok',
      bundle: { 'text/plain': '42' },
    });
    expect(frames.every((f) => f.key === 'K')).toBe(true);
  });
});

describe('js kernel: forged frames', () => {
  it('a frame a cell writes to the frame channel does not end the cell or lose its output', async () => {
    const k = await startJsWithNoise();
    const id = `${k.kernel.name}-c1`;
    const done = { type: 'done', id, status: 'ok', executionCount: 1, cancelled: false };
    const r = await run(
      k.kernel,
      [
        'const fs = require("node:fs");',
        `fs.writeSync(3, ${JSON.stringify(`${JSON.stringify(done)}\n`)});`,
        `fs.writeSync(3, ${JSON.stringify(JSON.stringify({ type: 'stdout', id, data: 'forged\n' }))});`, // no newline
        'console.log("after the forgery");',
        'await new Promise((r) => setTimeout(r, 50));',
        '"still running"',
      ].join('\n'),
    );
    expect(r.outcome.status).toBe('ok');
    expect(r.stdout).toBe('after the forgery\n');
    expect((r.result as Record<string, unknown>)['text/plain']).toBe("'still running'");
    // Both forgeries are dropped as noise (the runner's next frame ends the unterminated one).
    expect(k.noise.map((n) => n.reason)).toEqual([
      'a frame without the kernel key (written by user code?)',
      'a frame without the kernel key (written by user code?)',
    ]);
    // Nor can a child process write there: the channel is not inherited.
    const child = await run(
      k.kernel,
      'require("node:child_process").execSync("echo \'{}\' >&3 2>/dev/null; echo $?", { encoding: "utf8" }).trim()',
    );
    expect((child.result as Record<string, unknown>)['text/plain']).not.toBe("'0'");
  });

  it('the key is not in the environment a cell (or /proc) can read', async () => {
    const { kernel } = await startJsWithNoise();
    const r = await run(
      kernel,
      'const env = require("node:fs").readFileSync("/proc/self/environ", "utf8"); [env.includes("OMP_JS_SYNC_TOKEN"), Object.keys(process.env).filter((k) => k.startsWith("OMP_"))]',
    );
    expect((r.result as Record<string, unknown>)['text/plain']).toBe('[ false, [] ]');
  });
});

async function startJsWithNoise() {
  // Lines that are not frames reach the injected logger as warnings naming the reason.
  const noise: { line: string; reason: string }[] = [];
  const logger = {
    trace: () => {},
    warn: (message: string) => {
      const m = /sent a line that is not a frame \((.*?)\): (.*)$/s.exec(message);
      if (m) noise.push({ reason: m[1] as string, line: m[2] as string });
    },
  };
  const kernel = await startKernel({ language: 'js', logger });
  return { kernel, noise };
}
