import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cli, lastChildPid } from '../helpers/cli.js';
import { waitFor } from '../helpers/kernel.js';

function script(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'omp-run-')), 'script.py');
  writeFileSync(file, text);
  return file;
}

describe('omp-eval run', () => {
  it('runs the cells of a script in one kernel and exits 0', async () => {
    const file = script('# %% setup\nx = 20\nprint("set")\n# %% use\nx + 22\n');
    const r = await cli(['run', file]);
    expect(r).toMatchObject({ code: 0, stdout: 'set\n42\n', stderr: '' });
  });

  it('runs a .js script split on // %% lines in a JavaScript kernel, with no Python needed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-run-js-'));
    const file = join(dir, 'steps.js');
    writeFileSync(
      file,
      '// %% setup\nconst x = 20\nconsole.log("set")\n// %% use\nawait null\nx + 22\n// %% fail\nnull.boom\n',
    );
    const r = await cli(['--python', '/no/python', 'run', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('set\n42\n');
    expect(r.stderr).toContain("TypeError: Cannot read properties of null (reading 'boom')");
    expect(r.stderr).toContain(`at ${file}:8:6`); // (the script's line, as node's)
    expect(r.stderr).toContain('omp-eval run: cell 3 of 3 (line 8) failed');
  });

  it('runs piped cells in the line mode with --lang js, and %%py cells in Python', async () => {
    const r = await cli(['--lang', 'js'], {
      input:
        'const a = [1, 2, 3]\nfunction double(n) {\n  return n * 2\n}\na.map(double)\n%%py\nprint("py", 1 + 1)\n\n',
    });
    expect(r).toMatchObject({ code: 0, stdout: '[ 2, 4, 6 ]\npy 2\n' });
    const bad = await cli(['--lang', 'rust'], { input: '1' });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("option '--lang <language>' argument 'rust' is invalid");
  });

  it('line mode: blank lines inside open js code, %%js bodies up to an empty line, --timeout, no re-runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-line-js-'));
    const blank = await cli(['--lang', 'js'], {
      input: 'function f() {\n  const a = 1\n\n  return a\n}\nf()\n{a: 1}\n',
    });
    expect(blank).toMatchObject({ code: 0, stdout: '1\n{ a: 1 }\n' });
    const typo = await cli([], { input: 'print(1\n\nprint("next")\n' });
    expect(typo.stdout).toBe('next\n');
    expect(typo.stderr).toContain("SyntaxError: '(' was never closed");
    const jsTypo = await cli(['--lang', 'js'], { input: 'foo(\n\n\n"after"\n' });
    expect(jsTypo.stdout).toBe("'after'\n");
    const body = await cli([], { input: '%%js\nconst a = 1\nconsole.log(a + 1)\n\nprint("py")\n' });
    expect(body).toMatchObject({ code: 0, stdout: '2\npy\n' });
    const timeout = await cli(['--lang', 'js', '--timeout', '1'], { input: 'while (true) {}\n"after"\n' });
    expect(timeout.stdout).toBe("'after'\n");
    expect(timeout.stderr).toContain('timed out after 1s');
    const died = await cli(['--lang', 'js', '--cwd', dir], {
      input: 'require("fs").appendFileSync("side.txt", "ran\\n"); process.kill(process.pid, "SIGKILL")\n',
    });
    expect(died.code).toBe(1);
    expect(readFileSync(join(dir, 'side.txt'), 'utf8')).toBe('ran\n');
    expect(died.stderr).toContain('The JavaScript kernel died');
    expect(died.stderr).not.toContain('omp-sync');
    const noPy = await cli(['--python', '/no/python', '--lang', 'js'], { input: '%%py\n1\n\n' });
    expect(noPy.code).toBe(1);
    expect(noPy.stderr).toContain('The Python backend is not available');
  });

  it('waits, like node and python, for timers and threads the script left running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-run-late-'));
    const js = join(dir, 'late.js');
    writeFileSync(js, 'setTimeout(() => console.log("late"), 300)\n"done"\n');
    expect(await cli(['run', js])).toMatchObject({ code: 0, stdout: "'done'\nlate\n" });
    const py = script(
      'import threading, time\ndef later():\n    time.sleep(0.3)\n    print("late py")\nthreading.Thread(target=later).start()\n"done"\n',
    );
    expect(await cli(['run', py])).toMatchObject({ code: 0, stdout: "'done'\nlate py\n" });
  });

  it('loses nothing a callback does between cells: its output, its error, its process.exit()', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-run-between-'));
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    // A 0 ms timer fires as soon as its cell has ended: before the next request (the wait for
    // the script's background work) reaches the kernel.
    const late = await cli(['run', file('late.js', 'setTimeout(() => console.log("late"), 0)\n"done"\n')]);
    expect(late).toMatchObject({ code: 0, stdout: expect.stringContaining("'done'\nlate\n") });
    const thrown = await cli([
      'run',
      file('thrown.js', 'setTimeout(() => { throw new Error("boom") }, 0)\n'),
    ]);
    expect(thrown.code).toBe(1);
    expect(thrown.stderr).toContain('Uncaught Error: boom');
    expect(thrown.stderr).toContain('omp-eval run: a callback threw: boom');
    const exited = await cli(['run', file('exit.js', 'setTimeout(() => process.exit(3), 0)\n')]);
    expect(exited.code).toBe(3);
    expect(exited.stderr).toContain('process.exit(3) was called by a callback');
    const py = await cli([
      'run',
      file('late.py', 'import threading\nthreading.Timer(0, lambda: print("late py")).start()\n'),
    ]);
    expect(py).toMatchObject({ code: 0, stdout: 'late py\n' });
    // The line mode prints it too, between its cells (its input ends once it did).
    const lineMode = await cli(['--lang', 'js'], {
      input: 'setTimeout(() => console.log("late"), 0); 1\n',
      keepStdinOpen: true,
      onStdout: (text, child) => {
        if (text.includes('late\n')) child.stdin?.end();
      },
    });
    expect(lineMode).toMatchObject({ code: 0, stdout: '1\nlate\n' });
  });

  it('ends with the code of process.exit() / sys.exit(), also from a callback; pools and timeouts do not hang', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-run-exit-'));
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const later = await cli([
      'run',
      file(
        'a.js',
        'setTimeout(() => process.exit(3), 100);\nsetTimeout(() => console.log("after exit?"), 300);\n',
      ),
    ]);
    expect(later.code).toBe(3);
    expect(later.stdout).not.toContain('after exit?');
    const thrown = await cli(['run', file('b.js', 'setTimeout(() => { throw new Error("boom") }, 50);\n')]);
    expect(thrown.code).toBe(1);
    expect(thrown.stderr).toContain('omp-eval run: a callback threw: boom');
    expect(await cli(['run', file('c.js', 'console.log("a"); process.exit(0)\n')])).toMatchObject({
      code: 0,
      stdout: 'a\n',
      stderr: '',
    });
    // process.exitCode, set in a cell or a callback: node ends with it once the script is done.
    for (const [name, text] of [
      ['g.js', 'process.exitCode = 4;\nconsole.log("x");\n'],
      ['h.js', 'setTimeout(() => { process.exitCode = 5 }, 50);\n// %%\nconsole.log("y");\n'],
    ]) {
      const node = spawnSync(process.execPath, [file(name as string, text as string)]);
      expect((await cli(['run', file(name as string, text as string)])).code).toBe(node.status);
    }
    expect(await cli(['run', file('d.py', 'import sys\nprint("x")\nsys.exit(4)\n')])).toMatchObject({
      code: 4,
      stdout: 'x\n',
      stderr: '',
    });
    const pool = await cli([
      'run',
      file(
        'e.py',
        'from concurrent.futures import ThreadPoolExecutor\nex = ThreadPoolExecutor(2)\nprint(ex.submit(lambda: 42).result())\n',
      ),
    ]);
    expect(pool).toMatchObject({ code: 0, stdout: '42\n' });
    const forever = await cli(['run', file('f.js', 'setInterval(() => {}, 100);\n0\n'), '--timeout', '1']);
    expect(forever.code).toBe(1);
    expect(forever.stderr).toBe("omp-eval run: the script's background work timed out\n");
  });

  it("ends with python's status and message for each way a script exits (python3 is the oracle)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-run-status-'));
    const endings = [
      'sys.exit(1)',
      'sys.exit(False)',
      'sys.exit(True)',
      'sys.exit("3")',
      'sys.exit("None")',
      'sys.exit("")',
      'sys.exit(2**70)',
      'sys.exit(-1)',
      'sys.exit(None)',
      'raise SystemExit(1, 2)',
      'os._exit(7)',
      'os._exit(0)',
    ];
    const runs = await Promise.all(
      endings.map(async (ending, i) => {
        const path = join(dir, `s${i}.py`);
        writeFileSync(path, `import os, sys\nprint("before", flush=True)\n${ending}\nprint("never")\n`);
        const python = spawnSync('/usr/bin/python3', [path], { encoding: 'utf8' });
        const omp = await cli(['run', path]);
        return { ending, omp, python };
      }),
    );
    for (const { ending, omp, python } of runs) {
      expect({ ending, code: omp.code, stdout: omp.stdout }).toEqual({
        ending,
        code: python.status,
        stdout: python.stdout,
      });
      // (os._exit: omp-eval also says that the kernel ended, and in which cell)
      if (ending.startsWith('os.'))
        expect(omp.stderr).toContain(`cell 1 of 1 (line 1) ended its kernel (exit code ${python.status})`);
      else expect({ ending, stderr: omp.stderr }).toEqual({ ending, stderr: python.stderr });
    }
    // An uncaught KeyboardInterrupt the code raised: its traceback, and python's 130.
    const ki = join(dir, 'ki.py');
    writeFileSync(ki, 'raise KeyboardInterrupt\n# %%\nprint("never")\n');
    const interrupted = await cli(['run', ki]);
    // (python ends itself with SIGINT, which a shell reports as 130)
    expect(spawnSync('/usr/bin/python3', [ki]).signal).toBe('SIGINT');
    expect(interrupted.code).toBe(130);
    expect(interrupted.stderr).toContain('KeyboardInterrupt');
    expect(interrupted.stdout).toBe('');
  });

  it("prints what atexit handlers and process.on('exit') print at the end, as python and node do", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-run-atexit-'));
    const py = join(dir, 'a.py');
    writeFileSync(
      py,
      'import atexit, sys\natexit.register(lambda: print("atexit ran"))\nprint("main")\nsys.exit(3)\n',
    );
    const js = join(dir, 'a.js');
    writeFileSync(
      js,
      'process.on("exit", (code) => console.log("exit handler", code));\nconsole.log("main");\n',
    );
    const [ompPy, ompJs] = await Promise.all([cli(['run', py]), cli(['run', js])]);
    const python = spawnSync('/usr/bin/python3', [py], { encoding: 'utf8' });
    const node = spawnSync(process.execPath, [js], { encoding: 'utf8' });
    expect({ code: ompPy.code, stdout: ompPy.stdout }).toEqual({
      code: python.status,
      stdout: python.stdout,
    });
    expect(ompPy.stdout).toBe('main\natexit ran\n');
    expect({ code: ompJs.code, stdout: ompJs.stdout }).toEqual({ code: node.status, stdout: node.stdout });
  });

  it('names the script as python and node do: argv, __file__, its folder first on sys.path (python3 and node are the oracles)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-run-argv-'));
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'sibling.py'), 'VALUE = 42\n');
    writeFileSync(
      join(dir, 'sub', 's.py'),
      'import sys, sibling\n# %%\nprint(sibling.VALUE, __file__, sys.argv, sys.path[0] == __import__("os").path.dirname(__file__))\n',
    );
    writeFileSync(join(dir, 'a.js'), 'console.log(JSON.stringify(process.argv.slice(1)))\n');
    const [py, js, piped] = await Promise.all([
      cli(['run', 'sub/s.py', 'one', '--', '-two'], { cwd: dir }),
      cli(['run', 'a.js', 'x', '--', '-y'], { cwd: dir }),
      cli(['run', '-'], { cwd: dir, input: 'import sys\nprint(sys.argv, "__file__" in globals())\n' }),
    ]);
    const python = spawnSync('/usr/bin/python3', ['sub/s.py', 'one', '-two'], { cwd: dir, encoding: 'utf8' });
    const node = spawnSync(process.execPath, ['a.js', 'x', '-y'], { cwd: dir, encoding: 'utf8' });
    const stdin = spawnSync('/usr/bin/python3', ['-'], {
      cwd: dir,
      encoding: 'utf8',
      input: 'import sys\nprint(sys.argv, "__file__" in globals())\n',
    });
    expect(python.stdout).toContain('42 ');
    expect({ code: py.code, stdout: py.stdout }).toEqual({ code: 0, stdout: python.stdout });
    expect({ code: js.code, stdout: js.stdout }).toEqual({ code: 0, stdout: node.stdout });
    expect(piped.stdout).toBe(stdin.stdout);
  });

  it('takes global flags after the command too', async () => {
    const r = await cli(['run', '-', '--lang', 'js', '--timeout', '5'], { input: 'console.log(6 * 7)\n' });
    expect(r).toMatchObject({ code: 0, stdout: '42\n' });
    const tool = await cli(['tool', '--python', '/no/py'], {
      input: JSON.stringify({ cells: [{ language: 'py', code: '1' }] }),
    });
    expect(JSON.parse(tool.stdout).text).toContain('The Python interpreter /no/py cannot be used');
    // A program that is no Python and says nothing: what it did, not omp-eval's own command line.
    const silent = await cli(['tool', '--python', '/bin/false'], {
      input: JSON.stringify({ cells: [{ language: 'py', code: '1' }] }),
    });
    const text = JSON.parse(silent.stdout).text;
    expect(text).toContain('/bin/false (explicit interpreter): it exited with code 1 and said nothing');
    expect(text).not.toMatch(/omp-eval-gate|read -r go/);
  });

  it("gives the cells run's stdin as python gives a script its stdin (python3 is the oracle)", async () => {
    const file = script(
      [
        'import sys',
        'print(sys.stdin.encoding)',
        'name = input("name? ")',
        'print("hi", name)',
        'print(repr(sys.stdin.read(3)), repr(sys.stdin.readline()))',
        '# %%',
        'for line in sys.stdin:',
        '    print(repr(line))',
        'print(repr(sys.stdin.read()))',
        'try:',
        '    input("more? ")',
        'except EOFError as e:',
        '    print("EOFError:", e)',
        '',
      ].join('\n'),
    );
    // CRLF, a line that is not ASCII, and a last line without its newline
    const input = 'ada\nabcdef\r\nxyz\nnaïve ✓\nlast';
    const python = spawnSync('python3', [file], { input, encoding: 'utf8' });
    expect(python.status).toBe(0);
    const r = await cli(['run', file], { input });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(python.stdout);
    expect(r.stdout).toContain("'last'\n''\nmore? EOFError: EOF when reading a line\n");
  });

  it("%reset asks on run's stdin; its end answers no, IPython's default", async () => {
    const file = script('x = 1\n%reset\nprint("x" in dir())\n');
    const ended = await cli(['run', file], { input: '' });
    expect(ended).toMatchObject({
      code: 0,
      stdout: 'Once deleted, variables cannot be recovered. Proceed (y/[n])? \nNothing done.\nTrue\n',
    });
    const yes = await cli(['run', file], { input: 'y\n' });
    expect(yes).toMatchObject({
      code: 0,
      stdout: 'Once deleted, variables cannot be recovered. Proceed (y/[n])? False\n',
    });
  });

  it('a thread that reads stdin gets a clear error, and the run does not hang', async () => {
    const file = script(
      'import threading\ngot = []\ndef read():\n    got.append(input())\nt = threading.Thread(target=read)\nt.start()\nt.join()\n# %%\nprint(got, input())\n',
    );
    const r = await cli(['run', file], { input: 'bob\n' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('[] bob\n');
    expect(r.stderr).toContain(
      "StdinNotImplementedError: input() and sys.stdin work in the cell's main thread only",
    );
  });

  it('gives a script read with - no more input, and a js cell reads stdin too', async () => {
    const fromStdin = await cli(['run', '-'], { input: 'print(input("a? "))\n' });
    expect(fromStdin.code).toBe(1);
    expect(fromStdin.stdout).toBe('a? ');
    expect(fromStdin.stderr).toContain('EOFError: EOF when reading a line');

    const dir = mkdtempSync(join(tmpdir(), 'omp-run-js-'));
    const file = join(dir, 'ask.js');
    writeFileSync(
      file,
      'console.log("got", input("q? "));\ntry { input() } catch (e) { console.log(e.name, e.message) }\n',
    );
    const js = await cli(['run', file], { input: 'one\n' });
    expect(js).toMatchObject({ code: 0, stdout: 'q? got one\nEOFError EOF when reading a line\n' });
  });

  it('reads the script from stdin with -', async () => {
    const r = await cli(['run', '-'], { input: 'print("from stdin")\n# %%\n1 + 1\n' });
    expect(r).toMatchObject({ code: 0, stdout: 'from stdin\n2\n' });
  });

  it('exits 1 at a failing cell, names it, and runs no later cell', async () => {
    const file = script('print("one")\n# %%\n\nraise ValueError("two")\n# %%\nprint("three")\n');
    const r = await cli(['run', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('one\n');
    expect(r.stderr).toContain('ValueError: two');
    // (the script's file and line, as python's traceback names them)
    expect(r.stderr).toContain(`File "${file}", line 4, in <module>\n    raise ValueError("two")`);
    expect(r.stderr).toContain('omp-eval run: cell 2 of 3 (line 4) failed; 1 later cell not run');
  });

  it('exits 130 when interrupted, after interrupting the running cell', async () => {
    const file = script('import time\nprint("ready", flush=True)\ntime.sleep(30)\n# %%\nprint("never")\n');
    let sent = false;
    const r = await cli(['run', file], {
      onStdout: (out, child) => {
        if (!sent && out.includes('ready')) {
          sent = true;
          child.kill('SIGINT');
        }
      },
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('KeyboardInterrupt');
    expect(r.stdout).not.toContain('never');
  });

  it('ends quietly with 141, its kernel stopped, when the reader of its output goes away (| head)', async () => {
    const file = script('import os\nprint(os.getpid(), flush=True)\nwhile True:\n    print("y" * 80)\n');
    let kernel = 0;
    const r = await cli(['run', file], {
      onStdout: (out, child) => {
        if (!kernel && out.includes('\n')) {
          kernel = Number(out.split('\n')[0]);
          child.stdout?.destroy();
        }
      },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(141);
    await waitFor(() => !existsSync(`/proc/${kernel}`), 30_000, 'the kernel to end');
  });

  it("prints a DataFrame as ipython3 prints it, not its HTML's markdown table (pandas is Debian's)", async () => {
    const file = script(
      'import pandas as pd\ndf = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})\ndf\n# %%\nfrom IPython.display import HTML\nHTML("<b>bold</b>")\n',
    );
    const r = await cli(['--python', '/usr/bin/python3', 'run', file]);
    const oracle = spawnSync('/usr/bin/python3', [
      '-c',
      'import pandas as pd\nprint(repr(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})))',
    ]);
    expect(r.code).toBe(0);
    // (HTML whose object has no text of its own still reads as its markdown)
    expect(r.stdout).toBe(`${oracle.stdout.toString()}**bold**\n`);
  });

  it('applies --timeout per cell', async () => {
    const r = await cli(['--timeout', '1', 'run', '-'], { input: 'import time\ntime.sleep(20)\n' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('eval cell timed out after 1s');
    expect(r.stderr).not.toContain('reset: true'); // the tool's advice, which run has no use for
    expect(r.stderr).toContain('timed out');
  });

  it("runs a notebook's code cells in its kernel's language; a file that is no notebook is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-run-nb-'));
    const notebook = (language: string, cells: { cell_type: string; source: string | string[] }[]) =>
      JSON.stringify({
        cells: cells.map((c) => ({
          ...c,
          metadata: {},
          ...(c.cell_type === 'code' ? { outputs: [], execution_count: null } : {}),
        })),
        metadata: { kernelspec: { name: language, language, display_name: language } },
        nbformat: 4,
        nbformat_minor: 5,
      });
    const py = join(dir, 'py.ipynb');
    writeFileSync(
      py,
      notebook('python', [
        { cell_type: 'markdown', source: '# a title, not code' },
        { cell_type: 'code', source: ['x = 41\n', '%cd -q .'] },
        { cell_type: 'code', source: 'print("nb cell", x + 1)' },
      ]),
    );
    expect(await cli(['run', py])).toMatchObject({ code: 0, stdout: 'nb cell 42\n', stderr: '' });
    const js = join(dir, 'js.ipynb');
    writeFileSync(js, notebook('javascript', [{ cell_type: 'code', source: 'console.log(typeof process)' }]));
    expect(await cli(['run', js])).toMatchObject({ code: 0, stdout: 'object\n' });
    const failing = join(dir, 'failing.ipynb');
    writeFileSync(
      failing,
      notebook('python', [
        { cell_type: 'code', source: '1/0' },
        { cell_type: 'code', source: 'print("never")' },
      ]),
    );
    const failed = await cli(['run', failing]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toContain('omp-eval run: cell 1 of 2 failed');
    const r = join(dir, 'r.ipynb');
    writeFileSync(r, notebook('R', [{ cell_type: 'code', source: 'print(1)' }]));
    expect(await cli(['run', r])).toMatchObject({
      code: 2,
      stderr: `omp-eval run: ${r}: the notebook's language is R: omp-eval runs Python and JavaScript notebooks (--lang py or js runs its cells as one of those)\n`,
    });
    expect(await cli(['--lang', 'py', 'run', r])).toMatchObject({ code: 0, stdout: '1\n' });
    const garbage = join(dir, 'garbage.ipynb');
    writeFileSync(garbage, '{"execution_count": null}');
    const refused = await cli(['run', garbage]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^omp-eval run: .*garbage.ipynb: not a notebook: no "cells" list/);
  });

  it('says what log() and phase() said, and not what %cd -q chose not to', async () => {
    const r = await cli(['run', script('log("hello there")\nphase("two")\n%cd -q /\nprint(1)\n')]);
    expect(r).toMatchObject({ code: 0, stdout: '1\n', stderr: '[log] hello there\n[phase] two\n' });
  });

  it('accepts a script with a UTF-8 byte order mark', async () => {
    const file = script('\uFEFF# %% first\nprint("bom ok")\n');
    const r = await cli(['run', file]);
    expect(r).toMatchObject({ code: 0, stdout: 'bom ok\n' });
  });

  it('names an unknown command and the nearest one; help [command] prints that help', async () => {
    const typo = await cli(['rnu', 'x.py']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain("error: unknown command 'rnu' (did you mean 'run'?)");
    expect(typo.stderr).not.toContain('too many arguments');
    const script = await cli(['analysis.py']);
    expect(script.stderr).toContain("unknown command 'analysis.py'");
    expect(script.stderr).toContain('To run a script: omp-eval run analysis.py');
    const help = await cli(['help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('Usage: omp-eval [options] [command]');
    const runHelp = await cli(['help', 'run']);
    expect(runHelp.stdout).toContain('Usage: omp-eval run [options] <file> [args...]');
    // A command's help shows its own options and points to the global ones, not all of them again.
    expect(runHelp.stdout).not.toContain('--python <path>');
    expect(runHelp.stdout).toContain('omp-eval --help lists them');
    expect((await cli(['run', '--help'])).stdout).toBe(runHelp.stdout);
    expect((await cli(['help', 'nope'])).stderr).toContain("no command 'nope'");
    // (a command's own extra words stay an error)
    expect((await cli(['tool', 'extra'])).stderr).toContain("too many arguments for 'tool'");
  });

  it('reports a missing file and a bad flag clearly', async () => {
    const missing = await cli(['run', '/no/such/script.py']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('omp-eval run: cannot read /no/such/script.py: no such file\n');
    const badTimeout = await cli(['--timeout', 'soon', 'run', '-']);
    expect(badTimeout.code).not.toBe(0);
    expect(badTimeout.stderr).toContain("option '--timeout <seconds>' argument 'soon' is invalid");
    // Nothing can run: 2, as for a script that cannot be read (1 says a cell failed).
    const badCwd = await cli(['--cwd', '/no/such/dir', 'run', '-'], { input: '1' });
    expect(badCwd.code).toBe(2);
    expect(badCwd.stderr).toBe('omp-eval run: Working directory does not exist: /no/such/dir\n');
    expect(badCwd.stderr).toContain('Working directory does not exist: /no/such/dir');
  });

  it('reports a bad config file naming the setting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-cfg-'));
    writeFileSync(join(dir, 'config.json'), '{"python": {"kernelMode": "sometimes"}}');
    const r = await cli(['run', '-'], { input: '1', env: { OMP_EVAL_CONFIG: join(dir, 'config.json') } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/setting "python.kernelMode" in .*config.json must be "session" or "per-call"/);
  });
});

describe('omp-eval tool', () => {
  it('prints the tool result as one JSON object', async () => {
    const r = await cli(['tool'], {
      input: JSON.stringify({
        cells: [
          { language: 'py', code: 'x = 2\nprint("hi")', title: 'first' },
          { language: 'py', code: 'x * 21' },
        ],
      }),
    });
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.isError).toBe(false);
    expect(result.text).toBe('[1/2] first\nhi\n\n[2/2]\n42');
    expect(result.cells.map((c: { status: string }) => c.status)).toEqual(['ok', 'ok']);
    expect(result.cells[1]).toMatchObject({
      exitCode: 0,
      executionCount: 2,
      timedOut: false,
      kernelKilled: false,
    });
  });

  it('answers invalid JSON and invalid input with a JSON error and exit 2', async () => {
    const notJson = await cli(['tool'], { input: '{cells:' });
    expect(notJson.code).toBe(2);
    expect(JSON.parse(notJson.stdout)).toMatchObject({
      isError: true,
      error: expect.stringMatching(/not valid JSON/),
      problems: [expect.stringMatching(/not valid JSON/)],
    });
    // A byte-order mark before the JSON is read past.
    const bom = await cli(['tool'], { input: '\uFEFF{"cells": [{"language": "py", "code": "1+1"}]}' });
    expect(JSON.parse(bom.stdout).text).toBe('2');
    const invalid = await cli(['tool'], { input: '{"cells": [{"language": "rust", "code": 1}]}' });
    expect(invalid.code).toBe(2);
    expect(JSON.parse(invalid.stdout).problems).toEqual([
      'cells[0].language must be "py" or "js", got "rust"',
      'cells[0].code must be a string, got 1',
    ]);
  });

  it('follows PI_PY / PI_JS for backend availability', async () => {
    const cells = { cells: [{ language: 'py', code: '1' }] };
    const noPy = JSON.parse(
      (await cli(['tool'], { input: JSON.stringify(cells), env: { PI_PY: '0' } })).stdout,
    );
    expect(noPy.isError).toBe(true);
    expect(noPy.text).toContain('The Python backend is disabled');
    const none = JSON.parse(
      (await cli(['tool'], { input: JSON.stringify(cells), env: { PI_PY: 'false', PI_JS: 'off' } })).stdout,
    );
    expect(none.text).toMatch(/The eval tool is disabled/);
    const mixed = {
      cells: [
        { language: 'js', code: '40 + 2' },
        { language: 'py', code: 'print(1)' },
      ],
    };
    const onlyJs = JSON.parse(
      (await cli(['tool'], { input: JSON.stringify(mixed), env: { PI_PY: '0', PI_JS: '1' } })).stdout,
    );
    expect(onlyJs.cells.map((c: { status: string }) => c.status)).toEqual(['ok', 'error']);
    expect(onlyJs.text).toContain('[1/2]\n42');
    expect(onlyJs.text).toContain(
      'The Python backend is disabled (eval.py is false or PI_PY=0); use a js cell.',
    );
    expect(onlyJs.text).toContain('Cell 2 failed');
    const noJs = JSON.parse(
      (await cli(['tool'], { input: JSON.stringify(mixed), env: { PI_PY: '1', PI_JS: '0' } })).stdout,
    );
    expect(noJs.cells.map((c: { status: string }) => c.status)).toEqual(['error', 'skipped']);
    expect(noJs.text).toContain('The JavaScript backend is disabled');
  });

  it('fails py cells with an availability error when no Python resolves', async () => {
    const cells = {
      cells: [
        { language: 'py', code: '1' },
        { language: 'py', code: '2' },
      ],
    };
    const r = await cli(['--python', '/no/python3', 'tool'], { input: JSON.stringify(cells) });
    const result = JSON.parse(r.stdout);
    expect(result.isError).toBe(true);
    expect(result.cells.map((c: { status: string }) => c.status)).toEqual(['error', 'skipped']);
    expect(result.text).toContain(
      'The Python backend is not available: The Python interpreter /no/python3 cannot be used',
    );
  });
});

describe('omp-eval tool: failures stay JSON', () => {
  it('runs js cells and fails py cells with the Python error when Python is missing', async () => {
    const js = JSON.parse(
      (
        await cli(['--python', '/no/py', 'tool'], {
          input: JSON.stringify({
            cells: [
              { language: 'js', code: 'const n = 6; n * 7' },
              { language: 'py', code: '1' },
              { language: 'js', code: 'n' },
            ],
          }),
        })
      ).stdout,
    );
    expect(js.cells.map((c: { status: string }) => c.status)).toEqual(['ok', 'error', 'skipped']);
    expect(js.cells[0].text).toBe('42\n');
    expect(js.cells[1].error.ename).toBe('BackendUnavailable');
    expect(js.text).toContain(
      'The Python backend is not available: The Python interpreter /no/py cannot be used',
    );
    // No change to cell 2 can make a missing Python appear: no "Fix only cell 2".
    expect(js.text).toContain(
      'Earlier cells succeeded, but their state ends with this call. Cell 3 was not run.',
    );
    expect(js.text).not.toContain('Fix only');
    const skipped = await cli(['--python', '/no/py', 'tool'], {
      input: JSON.stringify({ cells: [{ language: 'py', code: '1' }] }),
      env: { PI_PYTHON_SKIP_CHECK: '1' },
    });
    expect(skipped.code).toBe(0);
    const result = JSON.parse(skipped.stdout);
    expect(result.cells[0].error.ename).toBe('BackendUnavailable');
    expect(result.text).toContain(
      'The Python backend is not available: The Python interpreter /no/py cannot be used',
    );
  });

  it('prints a JSON error for a bad config file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-cfg-'));
    writeFileSync(join(dir, 'config.json'), '{"eval": {"timeout": "later"}}');
    const r = await cli(['tool'], {
      input: '{"cells": [{"language": "py", "code": "1"}]}',
      env: { OMP_EVAL_CONFIG: join(dir, 'config.json') },
    });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({
      isError: true,
      error: expect.stringMatching(/eval.timeout.*number of seconds/),
    });
  });

  it('on Ctrl-C interrupts the cell, prints the result and exits 130', async () => {
    // No output arrives before the result: the cell makes a file once it runs, then Ctrl-C.
    const gate = join(mkdtempSync(join(tmpdir(), 'omp-gate-')), 'running');
    const pending = cli(['tool'], {
      input: JSON.stringify({
        cells: [
          {
            language: 'py',
            code: `import time\nopen(${JSON.stringify(gate)}, "w").close()\ntime.sleep(3600)`,
            timeout: 3600,
          },
        ],
      }),
    });
    await waitFor(() => existsSync(gate), 60_000, 'the cell to run');
    process.kill(lastChildPid(), 'SIGINT');
    const r = await pending;
    expect(r.code).toBe(130);
    const result = JSON.parse(r.stdout);
    expect(result.cells[0]).toMatchObject({ status: 'cancelled', timedOut: false });
    expect(result.cells[0].error.ename).toBe('KeyboardInterrupt');
  });
});

describe('--pass-env', () => {
  it('passes a variable the credential filter would drop, only when asked', async () => {
    const cell = JSON.stringify({
      cells: [{ language: 'py', code: 'import os\nos.environ.get("PI_SERVICE_TOKEN")' }],
    });
    const env = { PI_SERVICE_TOKEN: 'abc123' };
    const dropped = JSON.parse((await cli(['tool'], { input: cell, env })).stdout);
    expect(dropped.text).toBe('(no output)');
    const passed = JSON.parse(
      (await cli(['--pass-env', 'PI_SERVICE_TOKEN', 'tool'], { input: cell, env })).stdout,
    );
    expect(passed.text).toBe("'abc123'");
  });
});

describe('omp-eval setup python --check', () => {
  it('rejects a --cwd that is not a directory', async () => {
    const r = await cli(['--cwd', '/etc/hostname', 'setup', 'python', '--check']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Working directory is not a directory: /etc/hostname');
    // The tool too: bad input, exit 2, a JSON error (it exited 0)
    const tool = await cli(['--cwd', '/no/such/dir', 'tool'], {
      input: '{"cells":[{"language":"py","code":"1"}]}',
    });
    expect(tool.code).toBe(2);
    expect(JSON.parse(tool.stdout)).toMatchObject({
      error: 'Working directory does not exist: /no/such/dir',
      isError: true,
    });
  });

  it('prints the interpreter, its version and how it was chosen (with --check or without)', async () => {
    const plain = await cli(['setup', 'python']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^interpreter: \/.*python/m);
    const r = await cli(['setup', 'python', '--check']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^interpreter: \/.*python/m);
    expect(r.stdout).toMatch(/^version: +Python 3\.\d+\.\d+$/m);
    expect(r.stdout).toMatch(/^chosen from: PATH \(python3?\)/m);
    expect(r.stdout).toContain('.venv in the working directory): does not exist');
  });

  it('ends quietly with 141 when the reader of its report goes away (| head -1)', async () => {
    // (The reader is gone before the command writes anything: after its first line, a fast
    // machine had written the whole report already, and no write failed.)
    const child = spawn(process.execPath, [BIN, 'setup', 'python', '--check'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(141);
  });

  it('exits 1 and lists the candidates when none works', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'omp-empty-'));
    const r = await cli(['setup', 'python', '--check'], {
      env: { PATH: empty, HOME: empty, VIRTUAL_ENV: '', CONDA_PREFIX: '' },
      cwd: empty,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('No usable Python 3.8+ interpreter was found');
    expect(r.stderr).toContain('PATH (python3)');
  });
});
