/**
 * `omp-eval run`, `omp-eval tool` and the line mode (src/modes/run.ts, tool.ts, repl.ts) in
 * process: the functions the CLI calls, on a real executor and real kernels, their output streams
 * and stdin stand-ins held by the test. What they print and the exit codes they return.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runRepl } from '../../src/modes/repl.js';
import { runScript } from '../../src/modes/run.js';
import { MAX_INPUT_BYTES, runToolCommand } from '../../src/modes/tool.js';
import { makeExecutor } from '../helpers/executor.js';
import { waitFor } from '../helpers/kernel.js';
import { outputStreams, textSink, textSource } from '../helpers/streams.js';

const dir = mkdtempSync(join(tmpdir(), 'omp-modes-run-'));
let scripts = 0;

/** A script file of `lines` (named with `ext`). */
function script(lines: string[], ext = 'py'): string {
  const file = join(dir, `script${++scripts}.${ext}`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** Runs `file` as `omp-eval run` would; what it printed and its exit code. */
async function run(
  file: string,
  opts: { args?: string[]; stdin?: string; timeout?: number; cwd?: string } = {},
) {
  const { streams, out, err } = outputStreams();
  const code = await runScript(makeExecutor(), {
    file,
    cwd: opts.cwd ?? dir,
    streams,
    stdin: textSource(opts.stdin ?? ''),
    ...(opts.args ? { args: opts.args } : {}),
    ...(opts.timeout ? { timeout: opts.timeout } : {}),
  });
  return { code, out: out(), err: err() };
}

describe('omp-eval run, in process', { timeout: 120_000 }, () => {
  it('runs the cells in order in one kernel and exits 0', async () => {
    const file = script(['x = 20', '# %% second', 'print(x + 1)', '# %%', 'print(__file__, x * 2)']);
    const result = await run(file);
    expect(result).toEqual({ code: 0, out: `21\n${file} 40\n`, err: '' });
  });

  it('stops at a failing cell, names it and its line, and counts the cells not run', async () => {
    const file = script(['print("one")', '# %% two', '1 / 0', '# %%', 'print("three")']);
    const result = await run(file);
    expect(result.code).toBe(1);
    expect(result.out).toBe('one\n');
    expect(result.err).toContain('ZeroDivisionError');
    expect(result.err).toMatch(/omp-eval run: cell 2 of 3 \(line 3\) failed; 1 later cell not run\n$/);
  });

  it('ends with the status sys.exit asked for, printing only the message python would', async () => {
    const three = await run(script(['import sys', 'sys.exit(3)']));
    expect(three).toEqual({ code: 3, out: '', err: '' });
    const said = await run(script(['import sys', 'sys.exit("bye now")']));
    expect(said).toEqual({ code: 1, out: '', err: 'bye now\n' });
  });

  it("gives a kernel's own exit status when a cell ended it", async () => {
    const result = await run(script(['import os', 'os._exit(7)']));
    expect(result.code).toBe(7);
    expect(result.err).toMatch(/omp-eval run: cell 1 of 1 \(line 1\) ended its kernel \(exit code 7\)\n$/);
  });

  it('says a cell timed out and exits 1', async () => {
    const result = await run(script(['while True: pass']), { timeout: 1 });
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/omp-eval run: cell 1 of 1 \(line 1\) timed out\n$/);
  });

  it('answers input() from its stdin and passes the arguments as sys.argv', async () => {
    const file = script(['import sys', 'name = input("who? ")', 'print("hi", name, sys.argv[1:])']);
    const result = await run(file, { stdin: 'ada\n', args: ['-v', 'two'] });
    expect(result.code).toBe(0);
    expect(result.out).toContain("hi ada ['-v', 'two']");
  });

  it('reads the script from stdin for "-"', async () => {
    const result = await run('-', { stdin: 'import sys\nprint(sys.argv[0], __file__)\n' });
    expect(result).toEqual({ code: 0, out: '- <stdin>\n', err: '' });
  });

  it("waits for the script's threads (python) and timers (node), and ends with node's exit code", async () => {
    const py = await run(
      script([
        'import threading, time',
        'threading.Thread(target=lambda: (time.sleep(0.2), print("late"))).start()',
      ]),
    );
    expect(py).toEqual({ code: 0, out: 'late\n', err: '' });
    const js = await run(
      script(['const timer = setTimeout(() => { console.log("later"); process.exitCode = 4; }, 200);'], 'js'),
    );
    expect(js).toEqual({ code: 4, out: 'later\n', err: '' });
  });

  it("runs a notebook's code cells, not its markdown", async () => {
    const file = join(dir, 'book.ipynb');
    writeFileSync(
      file,
      JSON.stringify({
        nbformat: 4,
        nbformat_minor: 5,
        metadata: { kernelspec: { name: 'python3', language: 'python' } },
        cells: [
          { cell_type: 'markdown', metadata: {}, source: ['print("not me")'] },
          { cell_type: 'code', metadata: {}, source: ['print(6 * 7)'], outputs: [], execution_count: null },
        ],
      }),
    );
    expect(await run(file)).toEqual({ code: 0, out: '42\n', err: '' });
    const broken = join(dir, 'broken.ipynb');
    writeFileSync(broken, '{"cells": ');
    const bad = await run(broken);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain(`omp-eval run: ${broken}: `);
  });

  it('exits 2 without running anything on a script it cannot read or a folder that is none', async () => {
    const missing = await run(join(dir, 'missing.py'));
    expect(missing).toEqual({
      code: 2,
      out: '',
      err: `omp-eval run: cannot read ${join(dir, 'missing.py')}: no such file\n`,
    });
    expect(await run(dir)).toEqual({
      code: 2,
      out: '',
      err: `omp-eval run: cannot read ${dir}: is a directory\n`,
    });
    const nowhere = await run(script(['print(1)']), { cwd: join(dir, 'no-such-folder') });
    expect(nowhere.code).toBe(2);
    expect(nowhere.out).toBe('');
    expect(nowhere.err).toMatch(/^omp-eval run: .*no-such-folder/);
  });

  it('exits 130 on Ctrl-C, interrupting the running cell', async () => {
    const { streams, out } = outputStreams();
    const before = new Set(process.listeners('SIGINT'));
    const file = script(['import time', 'print("ready", flush=True)', 'while True: time.sleep(0.05)']);
    const code = runScript(makeExecutor(), { file, cwd: dir, streams, stdin: textSource('') });
    await waitFor(() => out().includes('ready'), 60_000, 'the cell to run');
    const mine = process.listeners('SIGINT').filter((l) => !before.has(l));
    expect(mine).toHaveLength(1);
    (mine[0] as () => void)();
    expect(await code).toBe(130);
    // (its handler is gone with it)
    expect(process.listeners('SIGINT').filter((l) => !before.has(l))).toEqual([]);
  });
});

/** Runs `omp-eval tool` on `input`; its one JSON line and exit code. */
async function tool(input: string | NodeJS.ReadableStream, cwd = dir) {
  const out = textSink();
  const code = await runToolCommand(makeExecutor(), {
    cwd,
    stdin: typeof input === 'string' ? textSource(input) : input,
    out: out.stream,
  });
  const lines = out.text().split('\n');
  expect(lines).toHaveLength(2); // one line, ended
  return { code, result: JSON.parse(lines[0] as string) };
}

describe('omp-eval tool, in process', { timeout: 120_000 }, () => {
  it('prints the result of the cells as one JSON line, also after a byte-order mark', async () => {
    const { code, result } = await tool(
      `\uFEFF${JSON.stringify({ cells: [{ language: 'py', code: 'print("hi")\n40 + 2' }] })}`,
    );
    expect(code).toBe(0);
    expect(result.isError).toBe(false);
    expect(result.cells[0]).toMatchObject({ status: 'ok', text: 'hi\n42\n' });
  });

  it('exits 2 on input that is no JSON, bad params, or a folder that is none', async () => {
    const junk = await tool('{"cells": [');
    expect(junk.code).toBe(2);
    expect(junk.result).toMatchObject({
      isError: true,
      error: expect.stringMatching(/^the input is not valid JSON: /),
    });
    const params = await tool(JSON.stringify({ cells: 3 }));
    expect(params.code).toBe(2);
    expect(params.result.isError).toBe(true);
    expect(params.result.problems.join('\n')).toMatch(/cells/);
    const nowhere = await tool(JSON.stringify({ cells: [] }), join(dir, 'none'));
    expect(nowhere.code).toBe(2);
    expect(nowhere.result.error).toMatch(/none/);
  });

  it('stops reading input past its cap and says so', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 32);
    let given = 0;
    async function* large() {
      while (given <= MAX_INPUT_BYTES + chunk.length) {
        given += chunk.length;
        yield chunk;
      }
    }
    const { code, result } = await tool(Readable.from(large()));
    expect(code).toBe(2);
    expect(result.error).toMatch(/^the input is larger than 64 MiB/);
    // (it stopped reading at the cap: the rest was never asked for)
    expect(given).toBeLessThanOrEqual(MAX_INPUT_BYTES + 2 * chunk.length);
  });
});

/** Feeds `lines` to the line mode; what it printed and its exit code. */
async function repl(lines: string) {
  const { streams, out, err } = outputStreams();
  const code = await runRepl(makeExecutor(), { cwd: dir, streams, input: textSource(lines) });
  return { code, out: out(), err: err() };
}

describe('the line mode, in process', { timeout: 120_000 }, () => {
  it('runs each complete cell as its lines come, a block once it is closed, and the rest at the end', async () => {
    const result = await repl(
      [
        'x = 2',
        'def f():',
        '    return x * 3',
        '',
        'print(f())',
        'for i in range(2):',
        '    print("i", i)',
      ].join('\n'),
    );
    expect(result).toEqual({ code: 0, out: '6\ni 0\ni 1\n', err: '' });
  });

  it('goes on after a failing cell and exits 1', async () => {
    const result = await repl('1 / 0\nprint("after")\n');
    expect(result.code).toBe(1);
    expect(result.out).toBe('after\n');
    expect(result.err).toContain('ZeroDivisionError');
  });
});
