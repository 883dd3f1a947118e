import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { resolveAgentHandle } from '../../src/eval/executor/commandBridge.js';
import { makeExecutor } from '../helpers/executor.js';

const FAKE = `python3 ${fileURLToPath(new URL('../fixtures/fake-agent.py', import.meta.url))}`;
const py = (code: string, extra: Record<string, unknown> = {}) => ({
  language: 'py' as const,
  code,
  ...extra,
});

/** A cell's text without the lines that say a bridge call ended. */
const outputOf = (text = '') => text.replace(/^\[(agent|completion)\b.*\]\n/gm, '');

function bridged() {
  return makeExecutor({ settings: { 'bridge.agentCommand': FAKE, 'bridge.completionCommand': FAKE } });
}

describe('the host bridge: agent() and completion()', () => {
  it('returns the agent text and the completion text', async () => {
    const s = await bridged().session();
    const [r] = await s.run([py('(agent("hello"), completion("abc"))')]);
    // Each call's end is a short line of the text too (an agent reads the text).
    expect(r?.text).toBe("[agent task finished]\n[completion finished]\n('agent:olleh', 'completion:cba')\n");
    const ops = r?.statusEvents.map((e) => `${e.op}:${(e as { state?: string }).state}`);
    expect(ops).toEqual(['agent:started', 'agent:finished', 'completion:started', 'completion:finished']);
  });

  it('parses JSON output with a schema, and says clearly when it does not match', async () => {
    const s = await bridged().session();
    const [ok] = await s.run([
      py('agent(\'json:{"name": "x", "n": 2}\', schema={"type": "object", "required": ["name"]})'),
    ]);
    expect(ok?.text).toBe("[agent task finished]\n{'name': 'x', 'n': 2}\n");
    const [bad] = await s.run([
      py('agent(\'json:{"n": 2}\', schema={"type": "object", "required": ["name"]})'),
    ]);
    expect(bad?.error).toMatchObject({
      ename: 'ValueError',
      evalue: 'agent output does not match the schema: missing name',
    });
    const [notJson] = await s.run([py('completion("plain text", schema={"type": "object"})')]);
    expect(notJson?.error?.evalue).toMatch(/^completion output is not JSON/);
  });

  it('checks the whole JSON Schema (ajv on the host), not only the type and required keys', async () => {
    const s = await bridged().session();
    const schema =
      '{"type": "object", "properties": {"n": {"type": "number"}, "tags": {"type": "array", "items": {"type": "string"}}}}';
    const [bad] = await s.run([py(`agent('json:{"n": true, "tags": ["a", 2]}', schema=${schema})`)]);
    expect(bad?.error).toMatchObject({
      ename: 'ValueError',
      evalue: 'agent output does not match the schema: /n must be number; /tags/1 must be string',
    });
    const [fenced] = await s.run([py(`completion('json:\`\`\`json\\n{"n": 1}\\n\`\`\`', schema=${schema})`)]);
    expect(fenced?.error).toBeUndefined();
    expect(fenced?.text).toMatch(/\{'n': 1\}\n$/);
    // Formats are checked, and a draft 2020-12 schema (zod 4 writes them) is read as one.
    const [format] = await s.run([
      py(
        `completion('json:{"at": "yesterday"}', schema={"$schema": "https://json-schema.org/draft/2020-12/schema", "properties": {"at": {"type": "string", "format": "date-time"}}})`,
      ),
    ]);
    expect(format?.error?.evalue).toBe(
      'completion output does not match the schema: /at must match format "date-time"',
    );
    const [invalid] = await s.run([py(`completion('json:{}', schema={"type": "no such type"})`)]);
    expect(invalid?.error?.evalue).toMatch(
      /^the schema given to completion\(\) is not a valid JSON Schema: /,
    );
  });

  it('a schema whose pattern backtracks for ever costs that call its answer, not the host', async () => {
    const s = await bridged().session();
    const schema = '{"type": "string", "pattern": "^(a+)+$"}';
    // (The deadline the tests' setup raised, for loaded machines, as the product's own.)
    vi.stubEnv('OMP_EVAL_SCHEMA_CHECK_MS', '5000');
    const [r] = await s.run([py(`completion('json:"${'a'.repeat(40)}!"', schema=${schema})`)]);
    vi.unstubAllEnvs();
    expect(r?.error?.ename).toBe('ValueError');
    expect(r?.error?.evalue).toMatch(
      /^checking the completion output against the schema took over 5 s and was stopped/,
    );
    // The host answered the next call as usual.
    const [next] = await s.run([py('completion("abc")')]);
    expect(next?.text).toBe("[completion finished]\n'completion:cba'\n");
  });

  it('with handle=True returns a node whose agent:// handle resolves to the transcript', async () => {
    const s = await bridged().session();
    const [r] = await s.run([py('node = agent("abc", handle=True, label="first")\nnode["handle"]')]);
    const uri = outputOf(r?.text).trim().replace(/'/g, '');
    expect(uri).toMatch(/^agent:\/\/[\w-]+$/);
    const transcript = JSON.parse(readFileSync(resolveAgentHandle(uri), 'utf8'));
    expect(transcript).toMatchObject({ output: 'agent:cba', request: { prompt: 'abc', label: 'first' } });
    const [keys] = await s.run([py('sorted(node)')]);
    expect(keys?.text).toBe("['agent', 'handle', 'id', 'output', 'text']\n");
  });

  it('runs 8 agent calls through parallel() with concurrency 4, results in input order', async () => {
    const s = await bridged().session();
    // The first four calls meet at a barrier (so four run at once); a counter shows no fifth.
    const [r] = await s.run([
      py(
        [
          'import threading',
          'barrier, lock, state = threading.Barrier(4, timeout=60), threading.Lock(), {"now": 0, "peak": 0}',
          'def call(i):',
          '    with lock:',
          '        state["now"] += 1',
          '        state["peak"] = max(state["peak"], state["now"])',
          '    if i < 4:',
          '        barrier.wait()',
          '    try:',
          '        return agent("sleep:0.4") + str(i)',
          '    finally:',
          '        with lock:',
          '            state["now"] -= 1',
          'out = parallel([lambda i=i: call(i) for i in range(8)], concurrency=4)',
          'print((out, state["peak"]))',
        ].join('\n'),
      ),
    ]);
    expect(outputOf(r?.text)).toBe(
      `([${Array.from({ length: 8 }, (_, i) => `'slept${i}'`).join(', ')}], 4)\n`,
    );
  });

  it('pauses the timeout while a call is in flight, but not while the cell computes', async () => {
    const s = await bridged().session();
    const [waiting] = await s.run([py('agent("sleep:6")', { timeout: 5 })]);
    expect(waiting?.status).toBe('ok');
    expect(waiting?.text).toBe("[agent task finished]\n'slept'\n");
    const [computing] = await s.run([
      py('import time\nt = time.time()\nwhile time.time() - t < 4: pass', { timeout: 2 }),
    ]);
    expect(computing?.timedOut).toBe(true);
  });

  it('a cancelled cell answers its in-flight call at once', async () => {
    const s = await bridged().session();
    const controller = new AbortController();
    // Cancelled once the call is in flight; a call that were not answered at once would hold
    // the cell for an hour (past the test's timeout).
    const [r] = await s.run([py('agent("sleep:3600")')], {
      signal: controller.signal,
      onEvent: (_, event) => {
        if (event.kind === 'status' && event.event.op === 'agent' && event.event.state === 'started')
          controller.abort();
      },
    });
    expect(r?.status).toBe('cancelled');
    const [after] = await s.run([py('1 + 1')]);
    expect(after?.text).toBe('2\n');
  });

  it('without a configured command, says how to configure one', async () => {
    const s = await makeExecutor().session();
    const [r] = await s.run([py('agent("x")')]);
    expect(r?.error?.ename).toBe('BridgeError');
    expect(r?.error?.evalue).toMatch(
      /agent\(\) needs a command to run it: start omp-eval with --agent-command CMD/,
    );
  });

  it('is private to the kernel: user code sees no bridge variable, and the helpers survive %reset', async () => {
    const s = await bridged().session();
    const [env] = await s.run([py('import os\n[k for k in os.environ if "BRIDGE" in k]')]);
    expect(env?.text).toBe('[]\n');
    const [reset] = await s.run([py('%reset -f\nagent("x")')]);
    expect(outputOf(reset?.text)).toBe("'agent:x'\n");
  });
});
