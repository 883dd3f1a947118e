/**
 * Issue 13, "results that never lie and lose nothing" (items 2-8), through `omp-eval tool`: the
 * real CLI, a real kernel, the JSON result an agent gets.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cli } from '../helpers/cli.js';
import { pidAlive, waitFor } from '../helpers/kernel.js';

interface Cell {
  language: 'py' | 'js';
  code: string;
  title?: string;
  timeout?: number;
  reset?: boolean;
}

/**
 * A private temp folder per test: the artifacts written there are the test's own, and removed
 * once it is over (a 200 MB artifact need not wait for the end of the run).
 */
const scratches: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'omp-results-'));
  scratches.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of scratches.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function tool(cells: Cell[], opts: { args?: string[]; env?: NodeJS.ProcessEnv; tmp?: string } = {}) {
  const r = await cli([...(opts.args ?? []), 'tool'], {
    input: JSON.stringify({ cells }),
    env: { TMPDIR: opts.tmp ?? scratch(), ...opts.env },
  });
  expect(r.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
  return { code: r.code, stdoutChars: r.stdout.length, ...JSON.parse(r.stdout) };
}

const py = (code: string, extra: Partial<Cell> = {}): Cell => ({ language: 'py', code, ...extra });
const js = (code: string, extra: Partial<Cell> = {}): Cell => ({ language: 'js', code, ...extra });

/** About 50,000 characters of output, plus the notices around it. */
const BUDGET = 52_000;

describe('item 1: output written up to the instant a kernel dies or is killed is in the result', () => {
  it('a line printed before os._exit(3)', async () => {
    const r = await tool([py("import os\nprint('dying', flush=True)\nos._exit(3)")]);
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^dying$/m);
    expect(r.text).toMatch(/exit code 3/);
  });

  it('a cell ended by sys.exit(n) or process.exit(n) has exit code n, as a script would', async () => {
    const [py3, js2, py0] = await Promise.all([
      tool([py('import sys\nsys.exit(3)')]),
      tool([js('process.exit(2)')]),
      tool([py('import sys\nsys.exit(0)')]),
    ]);
    expect(py3.cells[0]).toMatchObject({ status: 'error', exitCode: 3 });
    expect(py3.text).toContain('Cell 1 failed (exit code 3).');
    expect(js2.cells[0]).toMatchObject({ status: 'error', exitCode: 2 });
    // (sys.exit(0) in a cell is an exception there, as in IPython: the cell failed, exit code 1)
    expect(py0.cells[0]).toMatchObject({ status: 'error', exitCode: 1 });
    expect(py3.text).toMatch(
      /^An exception has occurred, use %tb to see the full traceback\.\n\nSystemExit: 3\n/,
    );
  });

  it('a cell that ends its kernel with os._exit() is not run again: its side effects happen once', async () => {
    const log = join(scratch(), 'log');
    const r = await tool([
      py('y = 1'),
      py(`open(${JSON.stringify(log)}, "a").write("ran\\n")\nimport os\nos._exit(0)`),
      py('print(y)'),
    ]);
    expect(readFileSync(log, 'utf8')).toBe('ran\n');
    // (its exit code is the kernel's 0, as its notice says, not an error's 1)
    expect(r.cells[1]).toMatchObject({ status: 'error', retried: false, exitCode: 0 });
    expect(r.text).toContain(
      "[The Python kernel exited while running this cell (exit code 0): the cell's code ended the process",
    );
    expect(r.text).toContain(
      'Cell 2 failed (the kernel exited, exit code 0). Earlier cells succeeded, but the Python kernel was restarted: the Python state they made is gone. Cell 3 was not run.',
    );
    expect(r.text).not.toContain('Fix only');
  });

  it('native text on fd 2 before abort()', async () => {
    const r = await tool([py("import os\nos.write(2, b'native: fatal XYZ\\n')\nos.abort()")]);
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/native: fatal XYZ/);
    expect(r.text).toMatch(/SIGABRT/);
  });

  it('text not yet flushed when the cell itself ends the kernel: os._exit, os.abort, process.kill, process.reallyExit', async () => {
    // As `python -u` and `node` write it: unbuffered.
    const [exited, aborted, killed, really] = await Promise.all([
      tool([py("import os, sys\nsys.stdout.write('partial')\nos._exit(3)")]),
      tool([py("import os\nprint('before abort', end='')\nos.abort()")]),
      tool([js('console.log("line before kill"); process.kill(process.pid, "SIGKILL")')]),
      tool([js('console.error("e before exit"); process.reallyExit(4)')]),
    ]);
    expect(exited.text).toMatch(/^partial/m);
    expect(aborted.text).toMatch(/^before abort/m);
    expect(killed.text).toMatch(/^line before kill$/m);
    expect(really.text).toMatch(/^e before exit$/m);
    for (const r of [exited, aborted, killed, really]) expect(r.isError).toBe(true);
  });

  it('a line printed just before a C call that holds the GIL, killed by the escalation', async () => {
    // libc's pause() called through PyDLL keeps the GIL, and with SIGINT blocked in the main thread
    // nothing ends it: the kernel's other threads cannot run Python until it is killed. (As a C
    // loop such as any(itertools.repeat(0)) would, without spending a core for 10 s.)
    const code =
      "import ctypes, signal\nprint('before the call', flush=True)\nsignal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})\nctypes.PyDLL(None).pause()";
    const r = await tool([py(code, { timeout: 5 })]);
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^before the call$/m);
    expect(r.cells[0]).toMatchObject({ timedOut: true, kernelKilled: true });
  });
});

describe('item 2: the output budget holds for any shape of output', () => {
  it('a single 900,000-character line: head and tail of it, all of it in the artifact', async () => {
    const r = await tool([py('print("a" + "x" * 899_998 + "z")')]);
    const [cell] = r.cells;
    expect(r.text.length).toBeLessThan(BUDGET);
    expect(r.text.startsWith('axxx')).toBe(true);
    expect(r.text).toMatch(/z\n\[output truncated: 900001 chars in all; full output: artifact:\/\/[\w-]+ \(/);
    expect(cell.text).toMatch(/… \[8\d{5} chars omitted; full output: artifact:\/\//);
    expect(readFileSync(cell.truncation.artifactPath, 'utf8')).toBe(`a${'x'.repeat(899_998)}z\n`);
  });

  it('five lines of 200,000: the first one starts the text, the last one ends it', async () => {
    const r = await tool([py('for c in "abcde":\n    print(c * 200_000)')]);
    const [cell] = r.cells;
    expect(r.text.length).toBeLessThan(BUDGET);
    expect(cell.text.startsWith('aaaa')).toBe(true);
    expect(cell.text.endsWith('eeee\n')).toBe(true);
    expect(cell.truncation).toMatchObject({ totalChars: 1_000_005, totalLines: 5 });
    expect(statSync(cell.truncation.artifactPath).size).toBe(1_000_005);
  });

  it('a 200 MB line without a newline: the text stays in the budget and the artifact has it all', async () => {
    const dir = scratch();
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ artifacts: { maxFileMB: 300, maxTotalMB: 600 } }));
    const r = await tool([py('import sys\nfor _ in range(200):\n    sys.stdout.write("y" * 1_000_000)')], {
      env: { OMP_EVAL_CONFIG: config },
      tmp: dir,
    });
    const [cell] = r.cells;
    expect(r.text.length).toBeLessThan(BUDGET);
    expect(cell.truncation.totalChars).toBe(200_000_000);
    expect(cell.truncation.omittedChars).toBeGreaterThan(199_900_000);
    expect(statSync(cell.truncation.artifactPath).size).toBe(200_000_000);
  }, 300_000);

  it('JSON outputs are bounded in count and size, the rest is in an artifact, one per line', async () => {
    const r = await tool([
      py('for i in range(150):\n    display({"application/json": {"i": i, "pad": "p" * 100_000}}, raw=True)'),
    ]);
    const [cell] = r.cells;
    expect(cell.json.length).toBeLessThanOrEqual(100);
    expect(JSON.stringify(cell.json).length).toBeLessThanOrEqual(4 * 1024 * 1024 + 1000);
    const notice = cell.notices.find((n: string) => n.includes('JSON outputs'));
    const kept = cell.json.length;
    expect(notice).toMatch(new RegExp(`^${150 - kept} JSON outputs \\(.* MB\\) left out of the result`));
    const path = /saved one per line in artifact:\/\/[\w-]+ \(([^)]+)\)/.exec(notice)?.[1] as string;
    const saved = readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(saved.map((o: { i: number }) => o.i)).toEqual(
      Array.from({ length: 150 - kept }, (_, i) => kept + i),
    );
    expect(r.text).toContain(notice);
    expect(r.stdoutChars).toBeLessThan(10_000_000);
  });

  it('images are bounded in count and size, each one left out saved as a file of its own', async () => {
    // A 2×3 PNG's header with 9 MB of payload: the header is all the host reads of it.
    const r = await tool([
      py(
        [
          'import base64, os',
          'head = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAYAAAC56t6BAAAAEElEQVR4nGNgYGD4z4AKAAH+AQHx3/eRAAAAAElFTkSuQmCC")',
          'for i in range(3):',
          '    data = head + bytes([i]) * 9_000_000',
          '    display({"image/png": base64.b64encode(data).decode(), "text/plain": "big %d" % i}, raw=True)',
          'for i in range(10):',
          '    display({"image/png": base64.b64encode(head).decode(), "text/plain": "small %d" % i}, raw=True)',
        ].join('\n'),
      ),
    ]);
    const [cell] = r.cells;
    expect(cell.images.length).toBeLessThanOrEqual(8);
    const chars = cell.images.reduce((n: number, i: { data: string }) => n + i.data.length, 0);
    expect(chars).toBeLessThanOrEqual(24 * 1024 * 1024);
    const left = 13 - cell.images.length;
    const notice = cell.notices.find((n: string) =>
      n.includes('left out of the result, which keeps at most 8 images'),
    );
    expect(notice).toMatch(new RegExp(`^${left} images \\(`));
    // (each named as artifact://<id> with its file: 302f6f6)
    const first = /saved as artifact:\/\/[\w-]+ \(([^)]+\.png)\)/.exec(notice)?.[1] as string;
    expect(readFileSync(first).subarray(1, 4).toString()).toBe('PNG');
    expect(r.stdoutChars).toBeLessThan(40_000_000);
  }, 180_000);
});

describe('item 3: a timeout is a timeout, and only the host can pause it', () => {
  it('a cell that caught the KeyboardInterrupt of its timeout is timedOut, with the notice', async () => {
    const r = await tool([
      py('import time\ntry:\n    time.sleep(3600)\nexcept KeyboardInterrupt:\n    print("caught it")', {
        timeout: 1,
      }),
      py('print("never")'),
    ]);
    expect(r.cells[0]).toMatchObject({ timedOut: true, status: 'cancelled' });
    expect(r.cells[0].notices[0]).toMatch(/^eval cell timed out after 1s/);
    expect(r.text).toContain('caught it');
    expect(r.text).toContain('Cell 1 timed out');
    expect(r.cells[1].status).toBe('skipped');
  });

  it('a kernel kept busy between cells (a js timer that never returns) times the next cell out', async () => {
    // The cell's request reaches a kernel that never reads it: the timeout counts from the
    // request, and the interrupt's escalation stops the kernel. (The timer blocks in Atomics.wait
    // as an endless loop would, without spending a core until the kill.) On a fast machine the
    // request can come before the timer is due: the kernel then starts the cell, which waits on a
    // later timer, and the blocked kernel times it out all the same.
    const r = await tool([
      js('setTimeout(() => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0) }, 0); 1'),
      js('await new Promise((r) => setTimeout(r, 50)); 2', { timeout: 1 }),
    ]);
    expect(r.cells[0]).toMatchObject({ status: 'ok' });
    expect(r.cells[1]).toMatchObject({ timedOut: true, kernelKilled: true });
    expect(r.cells[1].notices[0]).toMatch(
      /^eval cell timed out and the kernel was unresponsive to interrupt/,
    );
  });

  it('a timeout-pause status bundle a cell displays itself pauses nothing (Python and js)', async () => {
    const pyCell = py(
      'import time\ndisplay({"application/x-omp-status": {"op": "timeout-pause"}}, raw=True)\ntime.sleep(3600)',
      { timeout: 1 },
    );
    const jsCell = js(
      "display({'application/x-omp-status': {op: 'timeout-pause'}}, {raw: true})\nawait new Promise((r) => setTimeout(r, 3_600_000))",
      { timeout: 1 },
    );
    const [a, b] = await Promise.all([tool([pyCell]), tool([jsCell])]);
    expect(a.cells[0]).toMatchObject({ timedOut: true, status: 'cancelled' });
    expect(b.cells[0]).toMatchObject({ timedOut: true, status: 'cancelled' });
  });
});

describe('item 5: the interpreter a call runs in', () => {
  it('a ./.venv whose python fails is probed once per call and named in a notice', async () => {
    const dir = scratch();
    const log = join(dir, 'probes.log');
    mkdirSync(join(dir, '.venv', 'bin'), { recursive: true });
    const python = join(dir, '.venv', 'bin', 'python');
    writeFileSync(
      python,
      `#!/bin/sh\necho probed >> ${JSON.stringify(log)}\necho 'broken venv' >&2\nexit 1\n`,
    );
    chmodSync(python, 0o755);
    const r = await cli(['tool'], {
      input: JSON.stringify({ cells: [py('1 + 1')] }),
      cwd: dir,
      // Without bubblewrap the probe runs on the host, where it can count itself (in a sandbox,
      // where it runs otherwise, it cannot write: test/sandbox checks that).
      env: { TMPDIR: scratch(), OMP_EVAL_NO_PROBE_CACHE: '1', OMP_EVAL_BWRAP: '/nonexistent/bwrap' },
    });
    const result = JSON.parse(r.stdout);
    expect(result.cells[0]).toMatchObject({ status: 'ok', text: '2\n' });
    expect(result.cells[0].notices).toEqual([
      expect.stringMatching(
        /^Skipped .*\.venv\/bin\/python \(\.venv in the working directory\): broken venv\. This kernel runs /,
      ),
    ]);
    expect(readFileSync(log, 'utf8')).toBe('probed\n'); // (it was probed two or three times a call)
  });
});

describe('item 4: the advice text is true', () => {
  it('after reset: true and a failing cell, it does not say earlier state persists', async () => {
    const r = await tool([py('x = 1'), py('1 / 0', { reset: true })]);
    expect(r.text).not.toContain('their state persists');
    expect(r.text).toContain(
      'Earlier cells succeeded, but this cell restarted the Python kernel (reset: true): the Python state of the cells before it is gone.',
    );
    const later = await tool([py('x = 1'), py('y = 2', { reset: true }), py('1 / 0')]);
    expect(later.text).toContain('but cell 2 restarted the Python kernel (reset: true)');
    // `omp-eval tool` ends its kernels with the call: fixing cell 3 alone would lose cells 1-2.
    expect(later.text).toContain('Fix cell 3 and send the cells again.');
  });

  it('says the state ends with the call, where omp-eval tool ends its kernels', async () => {
    const r = await tool([py('x = 5'), py('1 / 0'), py('print(x)')]);
    expect(r.text).toContain(
      'Cell 2 failed (exit code 1). Earlier cells succeeded, but their state ends with this call. Cell 3 was not run. Fix cell 2 and send the cells again.',
    );
    expect(r.text).not.toContain('persists');
  });

  it('no "Fix only cell N" after a retry that lost state', async () => {
    const marker = join(scratch(), 'crashed');
    const r = await tool([
      py('y = 1'),
      py(
        `import os, signal\nif not os.path.exists(${JSON.stringify(marker)}):\n    open(${JSON.stringify(marker)}, "w").close()\n    os.kill(os.getpid(), signal.SIGSEGV)\n1 / 0`,
      ),
    ]);
    expect(r.cells[1]).toMatchObject({ retried: true, status: 'error' });
    // The retry's own error may come from the state it lacked: the notice says so.
    expect(r.text).toContain(
      'retried once, without the state of earlier cells (an error below may come from that). What the cell did before the crash (files written, requests sent) may have been done twice.',
    );
    expect(r.text).not.toContain('Fix only');
    expect(r.text).toContain('the Python kernel was restarted: the Python state they made is gone');
  });

  it('a kernel killed by SIGTERM after the interrupt reports exit code 143, not 130', async () => {
    const r = await tool([
      py(
        'import os, signal, time\nsignal.signal(signal.SIGINT, lambda *a: os.kill(os.getpid(), signal.SIGTERM))\ntime.sleep(3600)',
        { timeout: 5 },
      ),
    ]);
    expect(r.cells[0]).toMatchObject({ exitCode: 128 + constants.signals.SIGTERM, timedOut: true });
  });

  it('SIGTERM of the host: the result is printed, and says why the cell stopped', async () => {
    const dir = scratch();
    const started = join(dir, 'started');
    const child = spawn(process.execPath, [BIN, 'tool'], {
      env: { ...process.env, TMPDIR: dir },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    child.stdin.end(
      JSON.stringify({
        cells: [py(`open(${JSON.stringify(started)}, "w").close()\nimport time\ntime.sleep(3600)`)],
      }),
    );
    await waitFor(() => existsSync(started), 60_000, 'the cell to start');
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    const r = JSON.parse(stdout);
    expect(r.cells[0].notices[0]).toMatch(
      /^omp-eval was shutting down \(omp-eval received SIGTERM\) while this cell ran: the cell was stopped/,
    );
    expect(r.text).not.toContain('did not respond to the interrupt');
  });
});

describe('item 6: strings from the caller are sanitised like output', () => {
  it('a title with escape sequences and newlines is one plain line in the header', async () => {
    const r = await tool([
      py('1', { title: '\x1b[31mred\x1b[0m\nsecond line\x07\x1b]0;owned\x07' }),
      py('2', { title: 'plain \u202eevil\u202c' }),
    ]);
    // (a bidirectional override would reorder the rest of the header line)
    expect(r.text).toBe('[1/2] red second line\n1\n\n[2/2] plain evil\n2');
    // The result's own title field: what the caller gave, less what a terminal would act on.
    expect(r.cells[0].title).toBe('red\nsecond line');
  });

  it('text cut in the middle of long output never holds half an emoji', async () => {
    const r = await tool([py('print("😀" * 100000)')]);
    expect(r.text).toContain('chars omitted');
    expect(r.text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });

  it('an interpreter path with escapes does not reach the text raw', async () => {
    const r = await tool([py('1')], { args: ['--python', '/no/\x1b[2Jpython\x1b]0;x\x07'] });
    expect(r.text).toContain('/no/python');
    expect(r.text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
  });
});

describe('item 7: what the text points to can be read', () => {
  it('an artifact is named by its path too, and read() reads artifact:// and agent:// names', async () => {
    const tmp = scratch();
    const first = await tool([py('for i in range(30_000):\n    print("row", i)')], { tmp });
    const { artifact, artifactPath } = first.cells[0].truncation;
    expect(first.text).toContain(`${artifact} (${artifactPath})`);
    const r = await tool(
      [
        py(`text = read(${JSON.stringify(artifact)})\nprint(len(text.splitlines()), text.splitlines()[-1])`),
        js(`const t = read(${JSON.stringify(artifact)}).split('\\n'); console.log(t.length - 1, t.at(-2))`),
        py('import json\nh = agent("hello", handle=True)["handle"]\njson.loads(read(h))["output"]'),
      ],
      { tmp, args: ['--agent-command', 'echo answered'] },
    );
    const readLine = `[read ${artifact}: 30000 of 30000 lines]\n`;
    expect(r.cells[0].text).toBe(`${readLine}30000 row 29999\n`);
    expect(r.cells[1].text).toBe(`${readLine}30000 row 29999\n`);
    expect(r.cells[2].text).toMatch(
      /^\[agent task finished\]\n\[read agent:\/\/[\w-]+: \d+ of \d+ lines\]\n/,
    );
    expect(r.cells[2].text).toContain("'answered'");
  });
});

describe('each output on lines of its own, as a notebook shows them', () => {
  it('a result or a traceback after a line left open starts a line (tool and run)', async () => {
    const r = await tool([
      py('import sys\nsys.stdout.write("partial")\n5'),
      js("process.stdout.write('no newline'); 'x'"),
      py('import sys\nsys.stdout.write("then")\n1/0'),
    ]);
    expect(r.cells[0].text).toBe('partial\n5\n');
    expect(r.cells[1].text).toBe("no newline\n'x'\n");
    expect(r.cells[2].text).toMatch(/^then\nTraceback/);
    const run = await cli(['run', '-'], { input: 'import sys\nsys.stdout.write("partial")\n7' });
    expect(run.stdout).toBe('partial\n7\n');
    // The notice of a kernel that died after an open line too.
    const died = await tool([
      py('import os, sys\nsys.stdout.write("working"); sys.stdout.flush()\nos._exit(3)'),
    ]);
    expect(died.cells[0].text).toMatch(/^working\n\[The Python kernel exited/);
    expect(died.cells[0].text).not.toMatch(/\n\n\[/);
  });

  it('an image is a line of the text where it was shown, between the prints around it', async () => {
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==';
    const show = `display({"image/png": "${png}", "text/plain": "<Figure>"}, raw=True)`;
    const r = await tool([py(`print("before")\n${show}\nprint("between")\n${show}\nprint("after")`)]);
    expect(r.cells[0].text).toBe(
      'before\n<Figure>\n[image 1×1 png]\nbetween\n<Figure>\n[image 1×1 png]\nafter\n',
    );
    expect(r.cells[0].images).toHaveLength(2);
    // Only the images the result keeps (8) are lines; the others are files a notice names.
    const many = await tool([py(`for i in range(10): ${show}`)]);
    expect(many.cells[0].images).toHaveLength(8);
    expect(many.cells[0].text.match(/\[image 1×1 png\]/g)).toHaveLength(8);
    expect(many.text).toMatch(/2 images \(\d+ kB\) left out of the result/);
  });
});

describe('item 8: status events appear in the text as short lines', () => {
  it('log(), phase() and the file helpers, in both languages', async () => {
    const r = await tool([
      py('log("loading data")\nphase("step two")\nprint("done")'),
      js('log("from js"); phase("js phase"); console.log("ok")'),
    ]);
    expect(r.cells[0].text).toBe('[log] loading data\n[phase] step two\ndone\n');
    expect(r.cells[1].text).toBe('[log] from js\n[phase] js phase\nok\n');
    expect(r.cells[0].statusEvents).toEqual([
      { op: 'log', message: 'loading data' },
      { op: 'phase', title: 'step two' },
    ]);
  });
});

describe('work a one-shot call leaves running is not lost without a word', () => {
  it('a thread and a timer still running when the call ends are named in the last notice', async () => {
    const r = await tool([
      py(
        'import threading, time\nstop = threading.Event()\nthreading.Thread(target=stop.wait, name="poller").start()\nprint("now")',
      ),
      js('setTimeout(() => console.log("late js"), 60_000); console.log("now js")'),
    ]);
    expect(r.isError).toBe(false);
    const last = r.cells.at(-1);
    expect(last.notices).toHaveLength(1);
    expect(last.notices[0]).toMatch(
      /^Work was still running in the kernel when this call ended \(Python threads: poller; JavaScript timers and handles: Timeout×1\)\. The kernel ends with the call/,
    );
    expect(r.text).toContain('[Work was still running in the kernel');
    expect(r.cells[0].notices).toEqual([]);
  });

  it('names the work on the cell that failed when later cells were skipped, so the text has it', async () => {
    const r = await tool([
      py('import threading\nthreading.Thread(target=threading.Event().wait, name="poller").start()'),
      py('1/0'),
      py('print(3)'),
    ]);
    expect(r.cells.map((c: { status: string }) => c.status)).toEqual(['ok', 'error', 'skipped']);
    expect(r.cells[1].notices.join('\n')).toContain('Python threads: poller');
    expect(r.text).toContain('Python threads: poller');
  });

  it('processes the cells started and did not wait for are named, and stopped with the kernel', async () => {
    const r = await tool([
      py(
        'import os, subprocess\n' +
          'left = subprocess.Popen(["sleep", "300"])\n' +
          'os.system("sleep 299 &")\n' +
          // (a session of its own: it outlives the kernel, so it is not named)
          'kept = subprocess.Popen(["sleep", "301"], start_new_session=True)\n' +
          'done = subprocess.Popen(["true"]); done.wait()\n' +
          'print(left.pid, kept.pid)',
      ),
    ]);
    const [left, kept] = (r.cells[0].text as string).trim().split(' ').map(Number) as [number, number];
    try {
      expect(r.isError).toBe(false);
      const notice = r.cells[0].notices.at(-1) as string;
      expect(notice).toMatch(/^Work was still running in the kernel when this call ended \(2 processes: /);
      expect(notice).toContain(`sleep 300 [pid ${left}]`);
      expect(notice).toContain('sleep 299 [pid ');
      expect(notice).not.toContain('sleep 301');
      expect(notice).not.toContain('true');
      expect(notice).toContain('the processes it started are stopped with it');
      await waitFor(() => !pidAlive(left), 60_000, 'the process left running to be stopped');
      expect(pidAlive(kept)).toBe(true);
    } finally {
      if (kept) process.kill(kept, 'SIGKILL');
    }
  });

  it('says nothing when the cells waited for their work, or left none', async () => {
    const r = await tool([
      py(
        'import threading\nt = threading.Thread(target=print, args=("from a thread",))\nt.start()\nt.join()',
      ),
      py('threading.Thread(target=print, args=("daemon",), daemon=True).start()'),
      js('await new Promise((resolve) => setTimeout(resolve, 10)); 1 + 1'),
    ]);
    expect(r.isError).toBe(false);
    expect(r.cells.flatMap((c: { notices: string[] }) => c.notices)).toEqual([]);
    expect(r.text).not.toContain('still running');
  });
});
