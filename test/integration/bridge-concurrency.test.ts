/**
 * Issue 21: bridge replies that arrive together (a fast command answering many calls at once)
 * each reach their caller, and a call whose reply never comes still ends.
 */
import { describe, expect, it } from 'vitest';
import { makeExecutor } from '../helpers/executor.js';

const py = (code: string, extra: Record<string, unknown> = {}) => ({
  language: 'py' as const,
  code,
  ...extra,
});

/** A cell's text without the lines that say a bridge call ended. */
const outputOf = (text = '') => text.replace(/^\[(agent|completion)\b.*\]\n/gm, '');

// `cat` answers at once: its output is the request itself, so each reply names its own prompt.
const ECHO = 'cat';

// Four rounds of 50 threads. Calls still waiting at the deadline are reported by number: a lost
// reply shows up as a failed assertion instead of a cell paused for ever.
const FIFTY_COMPLETIONS = `
import json, threading
missing, wrong = [], []
for round in range(4):
    answers = [None] * 50
    def ask(i):
        answers[i] = completion("hi%d" % i)
    threads = [threading.Thread(target=ask, args=(i,), daemon=True) for i in range(50)]
    for t in threads: t.start()
    for t in threads: t.join()  # (no deadline of its own: on a loaded machine 200 calls take long)
    missing += [(round, i) for i, a in enumerate(answers) if a is None]
    wrong += [(round, i) for i, a in enumerate(answers) if a is not None and json.loads(a)["prompt"] != "hi%d" % i]
(missing, wrong)`;

describe('bridge calls under concurrency (issue 21)', () => {
  it('answers 50 concurrent completion() calls, each with its own reply', async () => {
    const s = await makeExecutor({ settings: { 'bridge.completionCommand': ECHO } }).session();
    const [r] = await s.run([py(FIFTY_COMPLETIONS)]);
    expect(r?.error).toBeUndefined();
    expect(outputOf(r?.text)).toBe('([], [])\n');
    const finished = r?.statusEvents.filter((e) => e.op === 'completion' && e.state === 'finished');
    expect(finished).toHaveLength(200);
  }, 180_000);

  it('answers parallel() over 50 agent() calls, results in input order', async () => {
    const s = await makeExecutor({ settings: { 'bridge.agentCommand': ECHO } }).session();
    const [r] = await s.run([
      py(
        'import json\nout = parallel([lambda i=i: agent("task%d" % i) for i in range(50)], concurrency=50)\n[json.loads(o)["prompt"] for o in out] == ["task%d" % i for i in range(50)]',
      ),
    ]);
    expect(r?.error).toBeUndefined();
    expect(outputOf(r?.text)).toBe('True\n');
  }, 180_000);

  it('a call whose reply never comes fails with BridgeError, and the cell timeout runs again', async () => {
    const s = await makeExecutor({ settings: { 'bridge.completionCommand': 'sleep 1000' } }).session();
    const [r] = await s.run([
      py(
        'try:\n    completion("x", timeout=1)\nexcept BridgeError as e:\n    print("caught:", e, flush=True)\nwhile True:\n    pass',
        { timeout: 2 },
      ),
    ]);
    expect(r?.text).toContain(
      'caught: no answer from the host to completion() within 1 s; the call was abandoned (pass timeout= to wait longer)',
    );
    expect(r?.timedOut).toBe(true);
    const ops = r?.statusEvents.map((e) => `${e.op}:${(e as { state?: string }).state ?? ''}`);
    expect(ops).toEqual(['completion:started', 'completion:failed']);
  }, 60_000);

  it('an uncaught bridge timeout ends the cell with BridgeError', async () => {
    const s = await makeExecutor({ settings: { 'bridge.agentCommand': 'sleep 1000' } }).session();
    const [r] = await s.run([py('agent("x", timeout=0.5)')]);
    expect(r?.error).toMatchObject({ ename: 'BridgeError' });
    expect(r?.error?.evalue).toMatch(/no answer from the host to agent\(\) within 0\.5 s/);
    const [after] = await s.run([py('1 + 1')]);
    expect(after?.text).toBe('2\n');
  }, 60_000);
});
