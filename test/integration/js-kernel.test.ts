import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signalDescendants } from '../../src/eval/process/processGroup.js';
import type { Frame } from '../../src/eval/protocol/index.js';
import { interruptAfterReady, pidAlive, run, startKernel, waitFor } from '../helpers/kernel.js';

const startJs = (opts: Parameters<typeof startKernel>[0] = {}) => startKernel({ language: 'js', ...opts });
const plain = (bundle: Record<string, unknown> | undefined) => bundle?.['text/plain'];

describe('js kernel: cells', () => {
  it('keeps state across cells, top-level declarations included, and allows redeclaring them', async () => {
    const k = await startJs();
    expect(
      plain((await run(k, 'const x = 20; let y = 1; var z = 1; function f(a) { return a + 1 }')).result),
    ).toBe(undefined);
    expect(plain((await run(k, 'class A { get v() { return x + y } }\nnew A().v + f(z)')).result)).toBe('23');
    // Running a cell again (or declaring the name anew) is not an error, as in Node's REPL.
    const again = await run(k, 'const x = 30; let y = 2; x + y');
    expect(again.outcome.status).toBe('ok');
    expect(plain(again.result)).toBe('32');
    expect(plain((await run(k, 'const {a, b: [c] = []} = {a: 1, b: [2]}; [a, c, typeof A]')).result)).toBe(
      "[ 1, 2, 'function' ]",
    );
  });

  it('renders the result with util.inspect, plain and coloured', async () => {
    const k = await startJs();
    const { result, outcome } = await run(k, '({ name: "omp", list: [1, 2], nested: { deep: true } })');
    expect(outcome.executionCount).toBe(1);
    expect(plain(result)).toBe("{ name: 'omp', list: [ 1, 2 ], nested: { deep: true } }");
    expect(result?.['application/x-omp-ansi']).toContain('\u001b[32m');
    // undefined shows nothing, like a statement.
    expect((await run(k, 'undefined')).result).toBeUndefined();
  });

  it('streams console.log/info/warn/error and process.stdout.write as stdout and stderr, in order', async () => {
    const k = await startJs();
    const { frames } = await run(
      k,
      'console.log("one", {a: 1}); console.error("two"); console.info("three"); console.warn("four"); process.stdout.write("five\\n")',
    );
    const streams = frames
      .filter(
        (f): f is Extract<Frame, { type: 'stdout' | 'stderr' }> => f.type === 'stdout' || f.type === 'stderr',
      )
      .map((f) => [f.type, f.data]);
    expect(streams).toEqual([
      ['stdout', 'one { a: 1 }\n'],
      ['stderr', 'two\n'],
      ['stdout', 'three\n'],
      ['stderr', 'four\n'],
      ['stdout', 'five\n'],
    ]);
  });

  it('runs top-level await, for await, and returns the last expression of an async cell', async () => {
    const k = await startJs();
    const r = await run(
      k,
      'const sleep = (ms) => new Promise((r) => setTimeout(r, ms));\nawait sleep(20);\nconst got = [];\nfor await (const v of [Promise.resolve(1), 2]) got.push(v);\ngot',
    );
    expect(r.outcome.status).toBe('ok');
    expect(plain(r.result)).toBe('[ 1, 2 ]');
    // Declarations of the async cell are globals afterwards; a returned promise is not awaited.
    expect(plain((await run(k, 'typeof sleep + " " + got.length')).result)).toBe("'function 2'");
    expect(plain((await run(k, 'await null; Promise.resolve(5)')).result)).toBe('Promise { 5 }');
    expect(plain((await run(k, 'async function later() { return 9 }\nawait later()')).result)).toBe('9');
    expect(plain((await run(k, 'await later()')).result)).toBe('9');
  });

  it('display() sends display frames: inspected values, raw MIME bundles and updates', async () => {
    const k = await startJs();
    const { frames } = await run(
      k,
      'display([1, 2]); display({"text/markdown": "# Title"}, {raw: true}); display("v1", {displayId: "p"}); display("v2", {displayId: "p", update: true})',
    );
    const displays = frames.filter((f) => f.type === 'display');
    expect(displays.map((f) => (f.type === 'display' ? (f.bundle['text/plain'] ?? f.bundle) : null))).toEqual(
      ['[ 1, 2 ]', { 'text/markdown': '# Title' }, "'v1'", "'v2'"],
    );
    expect(displays[3]).toMatchObject({ displayId: 'p', update: true });
    const bad = await run(k, 'display("x", {raw: true})');
    expect(bad.outcome.error?.evalue).toContain('MIME');
  });

  it('resolves require and import() from the working directory, and static imports', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'omp-js-cwd-'));
    mkdirSync(join(cwd, 'node_modules', 'local-pkg'), { recursive: true });
    writeFileSync(
      join(cwd, 'node_modules', 'local-pkg', 'package.json'),
      '{"name":"local-pkg","main":"i.js"}',
    );
    writeFileSync(join(cwd, 'node_modules', 'local-pkg', 'i.js'), 'module.exports = { hello: "pkg" };');
    writeFileSync(join(cwd, 'helper.cjs'), 'module.exports = (n) => n * 3;');
    writeFileSync(join(cwd, 'esm.mjs'), 'export const answer = 42; export default "dflt";');
    const k = await startJs({ cwd });
    expect(plain((await run(k, 'require("local-pkg").hello + require("./helper.cjs")(2)')).result)).toBe(
      "'pkg6'",
    );
    expect(plain((await run(k, '(await import("./esm.mjs")).answer')).result)).toBe('42');
    expect(
      plain((await run(k, 'const load = () => import("local-pkg"); (await load()).default.hello')).result),
    ).toBe("'pkg'");
    const st = await run(
      k,
      'import d, { answer as a } from "./esm.mjs"\nimport * as os from "node:os"\n[d, a, typeof os.cpus]',
    );
    expect(plain(st.result)).toBe("[ 'dflt', 42, 'function' ]");
    expect(plain((await run(k, 'process.cwd()')).result)).toBe(`'${cwd}'`);
    const noFile = await run(k, 'import z from "./nope.mjs"');
    expect(noFile.outcome.error?.evalue).toMatch(/^Cannot find module '.*nope\.mjs'$/);
    expect(noFile.outcome.error?.traceback.join('\n')).not.toContain('runner.cjs');
    const missing = await run(k, 'require("no-such-package-here")');
    expect(missing.outcome.error?.evalue).toContain("Cannot find module 'no-such-package-here'");
  });

  it("an error after an await shows the cell's frames, not Node's queue between them", async () => {
    const k = await startJs();
    const { outcome } = await run(
      k,
      'async function f() { await null; throw new TypeError("bad", { cause: new Error("root") }) }\nawait f()',
    );
    const tb = outcome.error?.traceback.join('\n') ?? '';
    expect(tb).toMatch(/at f \(Cell In\[1\]:1:\d+\)\n {4}at async Cell In\[1\]:2:1/);
    expect(tb).toContain('[cause]: Error: root');
    expect(tb).not.toContain('processTicksAndRejections');
  });

  it('reports errors with the cell line numbers and without the runner frames', async () => {
    const k = await startJs();
    await run(k, '1');
    const { outcome } = await run(k, 'function inner() {\n  throw new TypeError("bad value")\n}\ninner()');
    expect(outcome.status).toBe('error');
    expect(outcome.error?.ename).toBe('TypeError');
    expect(outcome.error?.evalue).toBe('bad value');
    const tb = outcome.error?.traceback.join('\n') ?? '';
    expect(tb).toContain('at inner (Cell In[2]:2:9)');
    expect(tb).toContain('at Cell In[2]:4:1');
    expect(tb).not.toMatch(/runner\.cjs|transform\.cjs|node:vm|node:internal/);
    // In an async cell (one line is put before it) the lines are the same.
    const asyncErr = await run(k, 'await null;\nnull.prop');
    expect(asyncErr.outcome.error?.traceback.join('\n')).toContain('Cell In[3]:2:');
    // Syntax errors come from V8, pointing at the line.
    const syntax = await run(k, 'let ok = 1;\nlet bad = ;');
    expect(syntax.outcome.error?.ename).toBe('SyntaxError');
    expect(syntax.outcome.error?.traceback.join('\n')).toContain('Cell In[4]:2');
    // Shown as Node shows it: no brackets around it (util.inspect's for an error without frames).
    expect(syntax.outcome.error?.traceback.at(-1)).toBe("SyntaxError: Unexpected token ';'");
    expect(syntax.outcome.error?.traceback[0]).toBe('Cell In[4]:2');
    const exported = await run(k, 'export const z = 1');
    expect(exported.outcome.error?.traceback).toEqual([
      'SyntaxError: export statements are not supported in a cell (line 1); declare the name instead',
    ]);
    // A thrown non-error value.
    expect((await run(k, 'throw 42')).outcome.error).toMatchObject({ ename: 'Uncaught', evalue: '42' });
    // An error in a callback after its cell ended is printed, and the kernel lives on.
    const late = await run(
      k,
      'setTimeout(() => { throw new Error("later") }, 5); await new Promise((r) => setTimeout(r, 50))',
    );
    expect(late.stderr).toContain('Uncaught Error: later');
    expect(plain((await run(k, '"alive"')).result)).toBe("'alive'");
  });

  it('attributes output of child processes written to fd 1 and 2 to the cell that ran them', async () => {
    const k = await startJs();
    const r = await run(
      k,
      'const { execSync } = require("node:child_process"); execSync("echo from-child; echo to-stderr >&2", { stdio: "inherit" }); "after"',
    );
    expect(r.stdout).toBe('from-child\n');
    expect(r.stderr).toBe('to-stderr\n');
    expect(plain(r.result)).toBe("'after'");
    expect(r.stdout).not.toContain('\u0000');
  });
});

describe('js kernel: interrupt', () => {
  it('interrupts a synchronous endless loop; the kernel keeps its state', async () => {
    const k = await startJs();
    await run(k, 'const kept = "state"');
    const { outcome } = await interruptAfterReady(
      k,
      'let n = 0; while (true) { if (++n === 1000) console.log("ready") }',
    );
    expect(outcome).toMatchObject({ status: 'error', cancelled: true, killed: false });
    expect(outcome.error?.ename).toBe('Interrupted');
    expect(k.state).toBe('idle');
    expect(plain((await run(k, 'kept + " " + (n > 0)')).result)).toBe("'state true'");
  });

  it('interrupts a pending await; the kernel keeps its state', async () => {
    const k = await startJs();
    const { outcome } = await interruptAfterReady(
      k,
      // "ready" from a timer: the cell is then surely waiting in its await, not in its sync part.
      'const before = 1; setTimeout(() => console.log("ready"), 0); await new Promise(() => {})',
    );
    expect(outcome).toMatchObject({ status: 'error', cancelled: true, killed: false });
    expect(outcome.error?.evalue).toContain('awaited');
    expect(plain((await run(k, 'before')).result)).toBe('1');
  });

  it('kills a kernel that does not answer (a loop in a callback) after the escalation window', async () => {
    const k = await startJs({ interruptEscalationMs: 500 });
    const pid = k.pid as number;
    // "ready" after the await: the loop surely runs in a continuation, where SIGINT cannot stop it.
    const { outcome } = await interruptAfterReady(k, 'await null; console.log("ready"); while (true) {}');
    expect(outcome).toMatchObject({ cancelled: true, killed: true });
    expect(k.state).toBe('dead');
    await waitFor(() => !pidAlive(pid), 60_000, 'the kernel to be gone');
  });
});

describe('js kernel: edges', () => {
  it('explains export statements, and completes names of the global scope and of objects', async () => {
    const k = await startJs();
    const exp = await run(k, 'const a = 1;\nexport { a }');
    expect(exp.outcome.error?.evalue).toBe(
      'export statements are not supported in a cell (line 2); declare the name instead',
    );
    await run(k, 'const library = { alpha: 1, beta: 2 }');
    expect((await k.complete('libr', 4, 600_000)).matches).toEqual(['library']);
    expect(await k.complete('x = library.al', 14, 600_000)).toEqual({
      matches: ['alpha'],
      start: 12,
      end: 14,
    });
    // A path that does not start at a global name is not evaluated.
    await run(k, 'globalThis.al = { pha: 1 }; const arr = [library]');
    expect((await k.complete('arr[0].al.ph', 12)).matches).toEqual([]);
  });
});

describe('js kernel: REPL conveniences and error details', () => {
  it('keeps the last result in _ until a cell assigns _ itself', async () => {
    const k = await startJs();
    await run(k, '6 * 7');
    expect(plain((await run(k, '_ + 1')).result)).toBe('43');
    await run(k, '0 / 0');
    await run(k, '5');
    expect(plain((await run(k, '_')).result)).toBe('5');
    await run(k, 'const _ = "mine"');
    await run(k, '1');
    expect(plain((await run(k, '_')).result)).toBe("'mine'");
  });

  it("shows an error's cause and properties, and completion of a hanging getter gives up", async () => {
    const k = await startJs();
    const r = await run(
      k,
      'throw new Error("outer", { cause: Object.assign(new Error("inner"), { code: "E_IN" }) })',
    );
    const tb = r.outcome.error?.traceback.join('\n') ?? '';
    expect(tb).toContain('[cause]: Error: inner');
    expect(tb).toContain("code: 'E_IN'");
    expect(tb).not.toMatch(/runner\.cjs|node:internal/);
    const rejected = await run(k, 'Promise.reject(new Error("rej"))');
    expect(plain(rejected.result)).toBe('Promise {\n  <rejected> Error: rej\n      at Cell In[2]:1:16\n}');
    const trace = await run(k, 'function where() { console.trace("here", 1) }\nwhere()');
    expect(trace.stderr).toBe('Trace: here 1\n    at where (Cell In[3]:1:28)\n    at Cell In[3]:2:1\n');
    await run(k, 'Object.defineProperty(globalThis, "slow", { get() { while (true) {} } })');
    expect((await k.complete('slow.x', 6, 5000)).matches).toEqual([]);
    expect(plain((await run(k, '"alive"')).result)).toBe("'alive'");
  });
});

describe('js kernel: what cells cannot break', () => {
  it('a NUL byte in child output neither leaks the end-of-cell marker nor delays later cells', async () => {
    // A lost marker would hold each `done` for an hour (past the test's timeout).
    const k = await startJs({ rawSyncMs: 3_600_000 });
    const nul = await run(
      k,
      'require("node:child_process").execSync("printf \'a\\\\0b\'", { stdio: "inherit" })',
    );
    expect(nul.stdout).toBe('a\u0000b');
    for (let i = 0; i < 2; i++) {
      const r = await run(k, 'require("node:child_process").execSync("echo hi", { stdio: "inherit" })');
      expect(r.stdout).toBe('hi\n');
    }
    // Output imitating a marker is output.
    const fake = await run(
      k,
      'require("node:child_process").execSync("printf \'\\\\0omp-sync:x:y\\\\0\'", { stdio: "inherit" })',
    );
    expect(fake.stdout).toBe('\u0000omp-sync:x:y\u0000');
  });

  it('lets cells redefine any global, as Node does: the runner has its own (a vm context)', async () => {
    const k = await startJs();
    const r = await run(
      k,
      'const JSON = {}; let process = "p"; var Promise = 1; const Object = null; const String = 0; "still"',
    );
    expect(plain(r.result)).toBe("'still'");
    expect(r.stderr).toBe('');
    // The cell's globals stay as it made them; results, display, require, errors still work.
    const after = await run(k, 'display([1]); await null; [typeof JSON.parse, process, Promise, Object]');
    expect(plain(after.result)).toBe("[ 'undefined', 'p', 1, null ]");
    expect(after.frames.filter((f) => f.type === 'display')).toHaveLength(1);
    expect(plain((await run(k, 'require("node:path").join("a", "b")')).result)).toBe("'a/b'");
    const err = await run(k, 'null.x');
    expect(err.outcome.error?.ename).toBe('TypeError');
    expect(err.outcome.error?.traceback.join('\n')).toContain('at Cell In[4]:1:6');
  });

  it('a thrown value whose stack cannot be read ends its cell; the next cell runs', async () => {
    const k = await startJs();
    const bad = await run(k, 'throw { get stack() { throw 1 }, get message() { throw 2 } }');
    expect(bad.outcome.status).toBe('error');
    expect(plain((await run(k, '1 + 1')).result)).toBe('2');
  });

  it('process.exit() ends the cell with ProcessExit; the kernel and its state live on', async () => {
    const k = await startJs();
    const pid = k.pid;
    await run(k, 'const kept = 7');
    const r = await run(k, 'console.log("before"); process.exit(3); console.log("never")');
    expect(r.stdout).toBe('before\n');
    // The code travels as a field of the error frame (run ends with it).
    expect(r.outcome.error).toMatchObject({ ename: 'ProcessExit', exitCode: 3 });
    expect(r.outcome.error?.evalue).toContain('process.exit(3) ended the cell');
    expect((await run(k, 'process.exit()')).outcome.error).toMatchObject({ exitCode: 0 });
    expect((await run(k, 'process.exit(-1)')).outcome.error).toMatchObject({ exitCode: 255 });
    expect(k.pid).toBe(pid);
    expect(plain((await run(k, 'kept')).result)).toBe('7');
  });

  it('Ctrl-C stops execSync() of a long command; the kernel keeps its state', async () => {
    const k = await startJs();
    await run(k, 'const kept = "yes"');
    // The interrupt is meant for the running child: sent once the child runs. (The runner's
    // children: in a sandbox the spawned process is bwrap, whose descendants include the runner.)
    const pid = (k.runnerPid ?? k.pid) as number;
    const { outcome } = await interruptAfterReady(
      k,
      'console.log("ready"); require("node:child_process").execSync("sleep 3600")',
      { until: () => signalDescendants(pid, 0 as unknown as NodeJS.Signals) > 0 },
    );
    expect(outcome).toMatchObject({ cancelled: true, killed: false });
    expect(plain((await run(k, 'kept')).result)).toBe("'yes'");
  });

  it('runs async cells with a hashbang, var in blocks and loops, and import attributes', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'omp-js-attr-'));
    writeFileSync(join(cwd, 'data.json'), '{"n": 5}');
    const k = await startJs({ cwd });
    expect(plain((await run(k, '#!/usr/bin/env node\nawait null\n"ran"')).result)).toBe("'ran'");
    await run(
      k,
      'for (var i = 0; i < 3; i++) await null;\nif (true) { var inner = await 4 }\nfor (var [p, q] of [[1, 2]]) await p',
    );
    expect(plain((await run(k, '[i, inner, p, q]')).result)).toBe('[ 3, 4, 1, 2 ]');
    expect(plain((await run(k, 'import data from "./data.json" with { type: "json" }\ndata.n')).result)).toBe(
      '5',
    );
    expect((await run(k, 'process.stdout.write("aGk=", "base64")')).stdout).toBe('hi');
  });
});
