/**
 * The kernel features Python cells have, for JavaScript cells (issue 17, items 10-12): input()
 * and readline's question through input_request, the prelude's helpers, agent() and
 * completion() over the bridge, display() of several values.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resolveAgentHandle } from '../../src/eval/index.js';
import type { Frame } from '../../src/eval/protocol/index.js';
import { runEvalTool } from '../../src/eval/tool.js';
import { makeExecutor } from '../helpers/executor.js';
import { interruptAfterReady, run, startKernel } from '../helpers/kernel.js';

const startJs = (opts: Parameters<typeof startKernel>[0] = {}) => startKernel({ language: 'js', ...opts });
const plain = (bundle: Record<string, unknown> | undefined) => bundle?.['text/plain'];
const statuses = (frames: Frame[]) =>
  frames.flatMap((f) =>
    f.type === 'display' && f.bundle['application/x-omp-status']
      ? [f.bundle['application/x-omp-status']]
      : [],
  );
const FAKE = `python3 ${fileURLToPath(new URL('../fixtures/fake-agent.py', import.meta.url))}`;
const js = (code: string, extra: Record<string, unknown> = {}) => ({
  language: 'js' as const,
  code,
  ...extra,
});

describe('js kernel: input()', () => {
  it('asks the host with input_request, also from readline question() and readline/promises', async () => {
    const k = await startJs();
    const prompts: string[] = [];
    const answer = (f: Frame) => {
      if (f.type !== 'input_request') return;
      prompts.push(f.prompt);
      k.sendInput(`answer ${prompts.length}`);
    };
    const r = await run(
      k,
      [
        'const a = input("first? ");',
        'const rl = require("node:readline").createInterface({ input: process.stdin, output: process.stdout });',
        'rl.question("second? ", (b) => console.log("callback", b));',
        'console.log("after question");',
        'const c = await require("node:readline/promises").createInterface({ input: process.stdin }).question("third? ");',
        '[a, c]',
      ].join('\n'),
      { allowStdin: true, onFrame: answer },
    );
    expect(prompts).toEqual(['first? ', 'second? ', 'third? ']);
    expect(r.stdout).toBe('after question\ncallback answer 2\n');
    expect(plain(r.result)).toBe("[ 'answer 1', 'answer 3' ]");
  });

  it('raises StdinNotImplementedError at once in a cell without stdin; the eval tool says so', async () => {
    const k = await startJs();
    const r = await run(k, 'input("name? ")');
    expect(r.outcome.error).toMatchObject({
      ename: 'StdinNotImplementedError',
      evalue: 'input() is not available: this cell was run without stdin. Pass the data in the code instead.',
    });
    expect(r.frames.some((f) => f.type === 'input_request')).toBe(false);
    const tool = await runEvalTool(
      { cells: [js('input("name? ")')] },
      { executor: makeExecutor(), id: 'stdin' },
    );
    expect(tool.text).toContain('StdinNotImplementedError: input() is not available');
  });

  it('Ctrl-C stops a cell waiting for input, in its synchronous and its async part', async () => {
    const k = await startJs();
    const sync = await interruptAfterReady(k, 'input("waiting? ")', { allowStdin: true });
    expect(sync.outcome).toMatchObject({ cancelled: true, killed: false });
    const late = await interruptAfterReady(k, 'await null; input("waiting? ")', { allowStdin: true });
    expect(late.outcome).toMatchObject({ cancelled: true, killed: false });
    expect(plain((await run(k, '"alive"')).result)).toBe("'alive'");
  });
});

describe('js kernel: the prelude helpers', () => {
  it('env, read, write, append, tree and diff give what the Python prelude gives, with status events', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-js-prelude-'));
    writeFileSync(join(dir, 'a.txt'), 'one\ntwo\nthree\n');
    const k = await startJs({ cwd: dir });
    const { result, frames, stdout } = await run(
      k,
      [
        'env("OMP_P", "1");',
        'write("b.txt", "one\\nTWO\\nthree\\n");',
        'append("b.txt", "four\\n");',
        'fs.mkdirSync("sub"); write("sub/c.txt", "");',
        'console.log(tree(".", 2));',
        'process.stdout.write(diff("a.txt", "b.txt"));',
        '[env("OMP_P"), typeof env(), env("OMP_NOPE"), read("b.txt", 1, 2)]',
      ].join('\n'),
    );
    expect(plain(result)).toBe("[ '1', 'object', undefined, 'TWO\\nthree\\n' ]");
    expect(readFileSync(join(dir, 'b.txt'), 'utf8')).toBe('one\nTWO\nthree\nfour\n');
    expect(stdout).toBe(
      [
        '.',
        '├── a.txt',
        '├── b.txt',
        '└── sub/',
        '    └── c.txt',
        '--- a.txt',
        '+++ b.txt',
        '@@ -1,3 +1,4 @@',
        ' one',
        '-two',
        '+TWO',
        ' three',
        '+four',
        '',
      ].join('\n'),
    );
    expect(statuses(frames)).toEqual([
      { path: 'b.txt', chars: 14, op: 'write' },
      { path: 'b.txt', chars: 5, op: 'append' },
      { path: 'sub/c.txt', chars: 0, op: 'write' },
      { path: '.', entries: 4, op: 'tree' },
      { changed: 3, op: 'diff' },
      { path: 'b.txt', lines: 2, total: 4, op: 'read' },
    ]);
  });

  it('log() and phase() are status lines; parallel() and pipeline() keep input order', async () => {
    const k = await startJs();
    const status = await run(k, 'phase("load"); log("42 rows")');
    expect(status.stdout).toBe('');
    expect(statuses(status.frames)).toEqual([
      { title: 'load', op: 'phase' },
      { message: '42 rows', op: 'log' },
    ]);
    const order = await run(
      k,
      [
        'const sleep = (ms) => new Promise((r) => setTimeout(r, ms))',
        'const job = async (i) => { await sleep(10 * (5 - i)); console.log("job", i); return i * i }',
        'await parallel([0, 1, 2, 3, 4].map((i) => () => job(i)), 3)',
      ].join('\n'),
    );
    expect(plain(order.result)).toBe('[ 0, 1, 4, 9, 16 ]');
    expect(order.stdout.split('\n').filter(Boolean).sort()).toEqual([
      'job 0',
      'job 1',
      'job 2',
      'job 3',
      'job 4',
    ]);
    const failing = await run(
      k,
      'await parallel([() => 1, () => { throw new RangeError("worker failed") }])',
    );
    expect(failing.outcome.error).toMatchObject({ ename: 'RangeError', evalue: 'worker failed' });
    const piped = await run(
      k,
      'await pipeline([1, 2, 3], (x) => x + 1, async (x) => x * 10, { concurrency: 2 })',
    );
    expect(plain(piped.result)).toBe('[ 20, 30, 40 ]');
  });
});

describe('js kernel: display()', () => {
  it('shows every value it is given; options stay options', async () => {
    const k = await startJs();
    const { frames } = await run(k, 'display(1, "two", [3]); display("v", { displayId: "d" })');
    const displays = frames.filter((f) => f.type === 'display');
    expect(displays.map((f) => (f.type === 'display' ? f.bundle['text/plain'] : null))).toEqual([
      '1',
      "'two'",
      '[ 3 ]',
      "'v'",
    ]);
    expect(displays[3]).toMatchObject({ displayId: 'd' });
  });
});

describe('js kernel: agent() and completion() over the bridge', () => {
  const bridged = () =>
    makeExecutor({ settings: { 'bridge.agentCommand': FAKE, 'bridge.completionCommand': FAKE } });

  it('resolve to the answers, with status events; a schema parses the output', async () => {
    const s = await bridged().session();
    const [r] = await s.run([js('[await agent("hello"), await completion("abc")]')]);
    expect(r?.text).toBe(
      "[agent task finished]\n[completion finished]\n[ 'agent:olleh', 'completion:cba' ]\n",
    );
    const ops = r?.statusEvents.map((e) => `${e.op}:${(e as { state?: string }).state}`);
    expect(ops).toEqual(['agent:started', 'agent:finished', 'completion:started', 'completion:finished']);
    const [ok] = await s.run([
      js('await agent(\'json:{"name": "x"}\', { schema: { type: "object", required: ["name"] } })'),
    ]);
    expect(ok?.text).toBe("[agent task finished]\n{ name: 'x' }\n");
    const [bad] = await s.run([js('await agent(\'json:{"n": 2}\', { schema: { required: ["name"] } })')]);
    expect(bad?.error?.evalue).toBe('agent output does not match the schema: missing name');
    // The same checker as Python's (ajv on the host): a boolean is not a number.
    const [notNumber] = await s.run([
      js('await agent(\'json:{"n": true}\', { schema: { properties: { n: { type: "number" } } } })'),
    ]);
    expect(notNumber?.error).toMatchObject({
      ename: 'TypeError',
      evalue: 'agent output does not match the schema: /n must be number',
    });
  });

  it('with handle: true resolves to a node whose agent:// handle names the transcript', async () => {
    const s = await bridged().session();
    const [r] = await s.run([
      js('const node = await agent("abc", { handle: true, label: "first" }); node.handle'),
    ]);
    expect(r?.text).toMatch(/^\[agent first finished\]\n/);
    const uri = (r?.text ?? '').trim().split('\n').at(-1)?.replace(/'/g, '') ?? '';
    expect(uri).toMatch(/^agent:\/\/[\w-]+$/);
    const transcript = JSON.parse(readFileSync(resolveAgentHandle(uri), 'utf8'));
    expect(transcript).toMatchObject({ output: 'agent:cba', request: { prompt: 'abc', label: 'first' } });
    const [keys] = await s.run([js('Object.keys(node).sort()')]);
    expect(keys?.text).toBe("[ 'agent', 'handle', 'id', 'output', 'text' ]\n");
  });

  it('pauses the timeout while a call is in flight, and a cancelled cell answers its call at once', async () => {
    const s = await bridged().session();
    const [waiting] = await s.run([js('await agent("sleep:6")', { timeout: 5 })]);
    expect(waiting?.status).toBe('ok');
    const controller = new AbortController();
    let started = false;
    const pending = s.run([js('await agent("sleep:30")')], {
      signal: controller.signal,
      onEvent: (_, e) => {
        if (e.kind === 'status') started = true;
      },
    });
    while (!started) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    const [cancelled] = await pending;
    expect(cancelled?.status).toBe('cancelled');
    const [after] = await s.run([js('1 + 1')]);
    expect(after?.text).toBe('2\n');
  });

  it('without a configured command, rejects with a BridgeError saying how to configure one', async () => {
    const s = await makeExecutor().session();
    const [r] = await s.run([js('await completion("x")')]);
    expect(r?.error?.ename).toBe('BridgeError');
    expect(r?.error?.evalue).toMatch(
      /completion\(\) needs a command to run it: start omp-eval with --completion-command/,
    );
    const [env] = await s.run([js('Object.keys(process.env).filter((k) => k.includes("BRIDGE"))')]);
    expect(env?.text).toBe('[]\n');
  });
});
