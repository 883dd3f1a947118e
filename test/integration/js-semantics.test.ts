/**
 * The JavaScript kernel against Node's REPL semantics (issue 17, items 1-9): each case fails
 * with the runner as it was before the split (global vars, no dead zone, runner frames).
 */
import { describe, expect, it } from 'vitest';
import type { Frame } from '../../src/eval/protocol/index.js';
import { interruptAfterReady, run, startKernel, waitFor } from '../helpers/kernel.js';

const startJs = () => startKernel({ language: 'js' });
const plain = (bundle: Record<string, unknown> | undefined) => bundle?.['text/plain'];
const tb = (r: Awaited<ReturnType<typeof run>>) => r.outcome.error?.traceback.join('\n') ?? '';

describe('js semantics: bindings', () => {
  it('const refuses assignment, in the same cell and later ones, and a later cell may declare it again', async () => {
    const k = await startJs();
    const same = await run(k, 'const c = 1; c = 2');
    expect(same.outcome.error).toMatchObject({
      ename: 'TypeError',
      evalue: 'Assignment to constant variable.',
    });
    expect(plain((await run(k, 'c')).result)).toBe('1');
    const later = await run(k, 'c++');
    expect(later.outcome.error?.evalue).toBe('Assignment to constant variable.');
    expect(plain((await run(k, 'const c = 3; let d = 1; d = 2; [c, d]')).result)).toBe('[ 3, 2 ]');
    // Destructuring and an async cell alike.
    await run(k, 'await null; const { e, f: [g] } = { e: 1, f: [2] }');
    expect((await run(k, 'g = 5')).outcome.error?.evalue).toBe('Assignment to constant variable.');
    expect(plain((await run(k, 'let c = "now a let"; c = "changed"; c')).result)).toBe("'changed'");
  });

  it('keeps the temporal dead zone; a name the failed cell introduced is not defined afterwards', async () => {
    const k = await startJs();
    const tdz = await run(k, 'x; let x = 1');
    expect(tdz.outcome.error).toMatchObject({
      ename: 'ReferenceError',
      evalue: "Cannot access 'x' before initialization",
    });
    expect((await run(k, 'x')).outcome.error?.evalue).toBe('x is not defined');
    expect((await run(k, 'function f() { return y } f(); const y = 2')).outcome.error?.evalue).toBe(
      "Cannot access 'y' before initialization",
    );
    // An earlier value of the name comes back when the new declaration never ran.
    await run(k, 'let z = "old"');
    expect((await run(k, 'throw new Error("before"); let z = "new"')).outcome.status).toBe('error');
    expect(plain((await run(k, 'z')).result)).toBe("'old'");
    expect((await run(k, 'let w = w + 1')).outcome.error?.evalue).toBe(
      "Cannot access 'w' before initialization",
    );
  });

  it('publishes function declarations in blocks of async cells, as a script does', async () => {
    const k = await startJs();
    await run(
      k,
      'if (await true) { function bar() { return "bar" } }\nswitch (1) { case 1: function baz() {} }',
    );
    expect(plain((await run(k, '[bar(), typeof baz]')).result)).toBe("[ 'bar', 'function' ]");
    // Completion values and names stay as a script has them.
    expect(plain((await run(k, '1; let n = 2')).result)).toBe('1');
    expect(plain((await run(k, 'const fn = () => {}; fn.name')).result)).toBe("'fn'");
  });
});

describe('js semantics: the REPL globals', () => {
  it('_ is undefined before the first result, then the last result; _error the last error', async () => {
    const k = await startJs();
    expect(plain((await run(k, 'typeof _ + " " + typeof _error')).result)).toBe("'undefined undefined'");
    await run(k, '6 * 7');
    expect(plain((await run(k, '_ + 1')).result)).toBe('43');
    await run(k, 'throw new RangeError("bad")');
    expect(plain((await run(k, '[_error.name, _error.message, _error instanceof RangeError]')).result)).toBe(
      "[ 'RangeError', 'bad', true ]",
    );
    const assigned = await run(k, '_ = "mine"');
    expect(assigned.stdout).toBe('Expression assignment to _ now disabled.\n');
    await run(k, '1');
    expect(plain((await run(k, '_')).result)).toBe("'mine'");
  });

  it('offers the built-in modules as globals loaded on first use, and module as the REPL does', async () => {
    const k = await startJs();
    const r = await run(
      k,
      '[typeof fs.readFileSync, path.join("a", "b"), typeof child_process.execSync, util === require("node:util")]',
    );
    expect(plain(r.result)).toBe("[ 'function', 'a/b', 'function', true ]");
    expect(plain((await run(k, '[module.id, module.filename, typeof module.exports]')).result)).toBe(
      "[ '<repl>', null, 'object' ]",
    );
    expect((await run(k, 'exports')).outcome.error?.evalue).toBe('exports is not defined');
    expect((await run(k, '__filename')).outcome.error?.evalue).toBe('__filename is not defined');
    // A cell may take the name for itself.
    expect(plain((await run(k, 'const os = "mine"; os')).result)).toBe("'mine'");
    expect(plain((await run(k, 'path = 5; path')).result)).toBe('5');
  });
});

describe('js semantics: stack traces', () => {
  it('console.error(err) and err.stack show the cell frames only', async () => {
    const k = await startJs();
    const r = await run(
      k,
      'function f() { null.x }\ntry { f() } catch (e) { console.error(e); console.log(e.stack) }',
    );
    const expected =
      "TypeError: Cannot read properties of null (reading 'x')\n    at f (Cell In[1]:1:21)\n    at Cell In[1]:2:7\n";
    expect(r.stderr).toBe(expected);
    expect(r.stdout).toBe(expected);
  });

  it("an error a kernel helper raises shows the cell's frame, not the helper's or the task queue's", async () => {
    const k = await startJs();
    const r = await run(k, 'await completion("x")');
    expect(r.outcome.error?.ename).toBe('BridgeError');
    expect(r.outcome.error?.traceback.slice(1)).toEqual(['    at async Cell In[1]:1:1']);
  });

  it('columns are exact on lines where a declaration was rewritten, in sync and async cells', async () => {
    const k = await startJs();
    expect(tb(await run(k, 'const a = 1; null.x'))).toContain('at Cell In[1]:1:19');
    expect(tb(await run(k, 'let b = await 1, c = 2; const d = b.e.f'))).toContain('at Cell In[2]:1:39');
    expect(tb(await run(k, 'class K {}; const obj = {}; obj.g()'))).toContain('at Cell In[3]:1:33');
    const nested = await run(k, 'const h = () => {\n  const i = 1; throw new Error("in h")\n}\nh()');
    expect(tb(nested)).toContain('at h (Cell In[4]:2:22)');
    expect(tb(nested)).toContain('at Cell In[4]:4:1');
  });
});

describe('js semantics: output of an abandoned await', () => {
  it('goes to background output, not to the cell running when it prints', async () => {
    const k = await startJs();
    const background: Frame[] = [];
    k.onBackground((f: Frame) => background.push(f));
    const { outcome } = await interruptAfterReady(
      k,
      // ("ready" once the cell awaits: the interrupt must abandon the await, not stop the code before it)
      'setTimeout(() => console.log("ready")); await new Promise((r) => setTimeout(r, 300)); console.log("late"); display("late display")',
    );
    expect(outcome.cancelled).toBe(true);
    const next = await run(k, 'await new Promise((r) => setTimeout(r, 800)); console.log("mine"); "second"');
    expect(next.stdout).toBe('mine\n');
    expect(plain(next.result)).toBe("'second'");
    await waitFor(() => background.some((f) => f.type === 'display'), 60_000, 'the background display');
    expect(background).toContainEqual({ type: 'stdout', id: null, data: 'late\n' });
  });
});
