import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Kernel } from '../../src/eval/index.js';
import { groupAlive, pidAlive, run, startKernel, waitFor } from '../helpers/kernel.js';

interface Row {
  /** What IPython does, which the row follows. */
  ipython: string;
  setup?: string;
  cell: string;
  stdout?: string | RegExp;
  result?: string | RegExp;
  error?: string;
}

/** Each row runs in one shared kernel, after its setup. */
const rows: Row[] = [
  { ipython: '%pwd returns the working directory', setup: 'import os', cell: '%pwd', result: /^'\/.*'$/ },
  {
    ipython: 'var = %magic assigns the return value',
    cell: 'here = %pwd\nhere == os.getcwd()',
    result: 'True',
  },
  {
    ipython: '%ls returns the sorted listing (spec)',
    setup: '%cd -q {tmp}\nopen("b.txt", "w").close(); open("a.txt", "w").close()',
    cell: '%ls',
    result: "['a.txt', 'b.txt']",
  },
  { ipython: '%cd prints the new directory', cell: '%cd {tmp}', stdout: '{tmp}\n' },
  { ipython: '%cd - goes back', setup: '%cd -q /\n%cd -q {tmp}', cell: '%cd -', stdout: '/\n' },
  { ipython: '%env KEY=VAL sets and echoes', cell: '%env OMP_A=1', stdout: 'env: OMP_A=1\n' },
  { ipython: '%env KEY VAL sets too', cell: '%env OMP_B two words', stdout: 'env: OMP_B=two words\n' },
  { ipython: '%env KEY reads', cell: '%env OMP_B', result: "'two words'" },
  { ipython: '%env lists as a dict', cell: 'e = %env\ntype(e).__name__', result: "'dict'" },
  {
    ipython: '%env of a missing key is a UsageError',
    cell: '%env OMP_MISSING_KEY',
    error: 'UsageError: Environment does not have key: OMP_MISSING_KEY',
  },
  {
    ipython: '%set_env KEY VALUE',
    cell: '%set_env OMP_C 3\nos.environ["OMP_C"]',
    stdout: 'env: OMP_C=3\n',
    result: "'3'",
  },
  {
    // IPython adds the compile and parse times after the wall time when either took over 0.1 s
    ipython: '%time reports CPU and wall time and returns the value',
    cell: '%time sum(range(10))',
    stdout: /^CPU times: user .+, sys: .+, total: .+\nWall time: .+\n(Compiler : .+\n)?(Parser {3}: .+\n)?$/,
    result: '45',
  },
  {
    ipython: '%%time times the body and returns its last value',
    cell: '%%time\nt = 3\nt * 2',
    stdout: /Wall time: /,
    result: '6',
  },
  {
    // IPython warns first when the slowest run took over 4× the fastest, as a loaded machine makes it
    ipython: '%timeit prints mean ± std. dev. (after the slow-run warning, when one applies)',
    cell: '%timeit -n 5 -r 3 sum(range(10))',
    stdout:
      /^(The slowest run took \S+ times longer than the fastest\. This could mean that an intermediate result is being cached\.\n)?\S+ \S+ ± \S+ \S+ per loop \(mean ± std\. dev\. of 3 runs, 5 loops each\)\n$/,
  },
  {
    ipython: '%timeit -o -q returns the result quietly',
    cell: 'r = %timeit -o -q -n2 -r2 pass\n(r.loops, r.repeat, len(r.all_runs))',
    stdout: '',
    result: '(2, 2, 2)',
  },
  {
    ipython: '%%timeit times the body',
    cell: '%%timeit -n 3 -r 2\nx = 1',
    stdout: /per loop \(mean ± std\. dev\. of 2 runs, 3 loops each\)/,
  },
  { ipython: '!cmd streams and shows nothing more', cell: '!echo hello', stdout: 'hello\n' },
  {
    ipython: '!cmd expands $var and {expr}',
    setup: 'n = 4\nOMP_C = "py"',
    cell: '!echo $n {n * 2} $OMP_C $$OMP_C',
    stdout: '4 8 py 3\n',
  },
  { ipython: '!cmd leaves unknown $VARS to the shell', cell: '!echo $OMP_B', stdout: 'two words\n' },
  {
    ipython: 'var = !cmd gives an SList',
    cell: 'out = !printf "a 1\\nb 2\\n"\n(out, out.n, out.s, out.fields(1), out.grep("b"))',
    result: "(['a 1', 'b 2'], 'a 1\\nb 2', 'a 1 b 2', ['1', '2'], ['b 2'])",
  },
  {
    ipython: 'indented !cmd inside a block',
    cell: 'for i in range(2):\n    !echo row {i}',
    stdout: 'row 0\nrow 1\n',
  },
  { ipython: '%%bash runs the body', cell: '%%bash\necho from bash\necho err >&2', stdout: 'from bash\n' },
  {
    ipython: '%%bash raises on a non-zero exit',
    cell: '%%bash\nexit 3',
    error: "subprocess.CalledProcessError: Command 'bash' returned non-zero exit status 3.",
  },
  { ipython: '%%sh runs sh', cell: '%%sh\necho $0', stdout: 'sh\n' },
  {
    ipython: '%%writefile writes, then overwrites',
    cell: '%%writefile {tmp}/w.txt\nhello',
    stdout: 'Writing {tmp}/w.txt\n',
  },
  {
    ipython: '%%writefile -a appends',
    cell: '%%writefile -a {tmp}/w.txt\nmore',
    stdout: 'Appending to {tmp}/w.txt\n',
  },
  {
    ipython: '%%writefile over an existing file',
    cell: '%%writefile {tmp}/w.txt\nnew',
    stdout: 'Overwriting {tmp}/w.txt\n',
  },
  {
    ipython: '%%capture hides and keeps stdout, stderr and displays',
    cell: '%%capture cap\nprint("out")\nimport sys; print("err", file=sys.stderr)\ndisplay(42)',
    stdout: '',
  },
  {
    ipython: 'the CapturedIO object',
    cell: '(cap.stdout, cap.stderr, len(cap.outputs), cap.outputs[0]["text/plain"])',
    result: "('out\\n', 'err\\n', 1, '42')",
  },
  { ipython: 'CapturedIO.show() replays', cell: 'cap.show()', stdout: 'out\n' },
  {
    ipython: 'unknown line magic',
    cell: '%nosuchmagic 1',
    error: 'UsageError: Line magic function `%nosuchmagic` not found.',
  },
  {
    ipython: 'unknown cell magic',
    cell: '%%nosuchcell\nbody',
    error: 'UsageError: Cell magic `%%nosuchcell` not found.',
  },
  { ipython: '%matplotlib inline is accepted', cell: '%matplotlib inline', stdout: '' },
  {
    ipython: '%lsmagic lists magics',
    cell: '%lsmagic',
    stdout: /Available line magics:\n.*%cd.*\n\nAvailable cell magics:\n.*%%bash.*%%javascript {2}%%js /,
  },

  {
    ipython: 'obj? shows signature and docstring',
    setup: 'def helper(a, b=2):\n    """Adds."""\n    return a + b',
    cell: 'helper?',
    stdout: /^Signature: helper\(a, b=2\)\nDocstring: Adds\.\n/,
  },
  { ipython: 'obj?? shows the source', cell: 'helper??', stdout: /Source:\s+\ndef helper\(a, b=2\):/ },
  {
    ipython: 'In and _iN hold cell sources; Out and _N results',
    setup: '40 + 2',
    cell: '(In[-2], Out[len(In) - 2], _i == In[-2])',
    result: "('40 + 2', 42, True)",
  },
  {
    ipython: '%xmode Minimal shows only the exception',
    setup: '%xmode Minimal',
    cell: '1/0',
    error: 'ZeroDivisionError: division by zero',
  },
];

function fill(text: string, tmp: string) {
  return text.replaceAll('{tmp}', tmp);
}

describe('magics, row by row (IPython semantics)', () => {
  it.sequential('all rows', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'omp-magic-'));
    const k = await startKernel({ cwd: tmp }); // writable in a sandbox too
    for (const row of rows) {
      if (row.setup) {
        const setup = await run(k, fill(row.setup, tmp));
        expect(setup.outcome.status, `setup of: ${row.ipython}`).toBe('ok');
      }
      const r = await run(k, fill(row.cell, tmp));
      const label = `${row.ipython}: ${row.cell}`;
      if (row.error) {
        expect(r.outcome.status, label).toBe('error');
        expect(r.outcome.error?.traceback.at(-1), label).toBe(row.error);
        continue;
      }
      expect(r.outcome.error, label).toBeUndefined();
      if (typeof row.stdout === 'string') expect(r.stdout, label).toBe(fill(row.stdout, tmp));
      else if (row.stdout) expect(r.stdout, label).toMatch(row.stdout);
      if (typeof row.result === 'string') expect(r.result?.['text/plain'], label).toBe(row.result);
      else if (row.result) expect(String(r.result?.['text/plain']), label).toMatch(row.result);
    }
    expect(readFileSync(join(tmp, 'w.txt'), 'utf8')).toBe('new\n');
  });
});

async function names(k: Kernel, code: string) {
  return (await run(k, code)).stdout;
}

describe('magics: namespace', () => {
  it('%who lists only the user names, in IPython format, and filters by type', async () => {
    const k = await startKernel();
    expect(await names(k, '%who')).toBe('Interactive namespace is empty.\n');
    await run(k, 'import os\nb = 1\na = "x"\n_private = 2');
    expect(await names(k, '%who')).toBe('a\t b\t os\t \n');
    expect(await names(k, '%who int')).toBe('b\t \n');
    expect(await names(k, '%whos')).toBe(
      "Variable   Type      Data/Info\n------------------------------\na          str       x\nb          int       1\nos         module    <module 'os' (frozen)>\n",
    );
    expect(
      (await run(k, '[n for n in dir() if n.startswith(("__omp", "_omp"))]')).result?.['text/plain'],
    ).toBe("['__omp_prelude__']");
  });

  it('%reset clears the user names and keeps the prelude helpers', async () => {
    const k = await startKernel();
    await run(k, 'x = 1\n_emit_status = None');
    await run(k, '%reset -f');
    expect(await names(k, '%who')).toBe('Interactive namespace is empty.\n');
    const { frames } = await run(k, '_emit_status("still", ok=True)');
    expect(frames.find((f) => f.type === 'display')).toMatchObject({
      bundle: { 'application/x-omp-status': { op: 'still', ok: true } },
    });
  });

  it('%cd persists across cells and emits a status event', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-cd-'));
    const k = await startKernel();
    const { frames } = await run(k, `%cd ${dir}`);
    expect(frames.find((f) => f.type === 'display')).toMatchObject({
      bundle: { 'application/x-omp-status': { op: 'cd', path: dir } },
    });
    expect((await run(k, 'import os\nos.getcwd()')).result?.['text/plain']).toBe(`'${dir}'`);
  });

  it('%run runs a script with arguments and merges its globals; %run -m runs a module', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-run-'));
    writeFileSync(
      join(dir, 'script.py'),
      'import sys\nargs = sys.argv[1:]\nprint("running", __name__, args)\n',
    );
    writeFileSync(join(dir, 'modrun.py'), 'import sys\nflag = sys.argv[1:]\n');
    const k = await startKernel({ cwd: dir });
    const { stdout } = await run(k, '%run script.py one "two words"');
    expect(stdout).toBe("running __main__ ['one', 'two words']\n");
    expect((await run(k, 'args')).result?.['text/plain']).toBe("['one', 'two words']");
    await run(k, '%run -m modrun --x');
    expect((await run(k, 'flag')).result?.['text/plain']).toBe("['--x']");
    // (IPython's plain Exception, in its words)
    const missing = (await run(k, '%run missing.py')).outcome.error;
    expect([missing?.ename, missing?.traceback.at(-1)]).toEqual([
      'Exception',
      "Exception: File `'missing.py'` not found.",
    ]);
  });

  it('a %%js cell that reaches the Python kernel says where JavaScript cells run', async () => {
    // (IPython hands it to the browser, which a terminal has not: a listed departure)
    const k = await startKernel({ cwd: mkdtempSync(join(tmpdir(), 'omp-magic-js-')) });
    for (const name of ['js', 'javascript']) {
      const { outcome } = await run(k, `%%${name}\nconsole.log(1)`);
      expect(outcome.error?.traceback).toEqual([
        `UsageError: \`%%${name}\` cells run in the JavaScript kernel, not in Python's: in the notebook and in \`omp-eval run\`, a first line \`%%js\` makes the cell a JavaScript one; the eval tool takes {"language": "js"} instead.`,
      ]);
    }
  });

  it('%load runs the file as a cell', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-load-'));
    writeFileSync(join(dir, 'lib.py'), 'loaded = 7\nloaded * 6\n');
    const k = await startKernel({ cwd: dir });
    expect((await run(k, '%load lib.py')).result?.['text/plain']).toBe('42');
    expect((await run(k, 'loaded')).result?.['text/plain']).toBe('7');
  });

  it('keeps traceback line numbers on the user lines around magics', async () => {
    const k = await startKernel();
    const { outcome } = await run(k, 'x = 1\n%pwd\n!true\nraise ValueError("line 4")');
    expect(outcome.error?.traceback.join('\n')).toContain(
      'Cell In[1], line 4, in <module>\n    raise ValueError("line 4")',
    );
    // %%time shows the body's error as IPython does (the cell goes on), with the body's lines.
    const cell = await run(k, '%%time\na = 1\nraise KeyError("in body")');
    expect(cell.outcome.status).toBe('ok');
    expect(cell.stderr).toContain('Cell In[2], line 3, in <module>\n    raise KeyError("in body")');
  });
});

describe('magics: shell commands and interrupts', () => {
  it('Ctrl-C stops !cmd with its process group, and nothing is left running', async () => {
    const k = await startKernel();
    let ready = false;
    const pending = run(k, '!echo ready; sleep 30.017 & sleep 30.017; echo never', {
      onFrame: (f) => {
        if (f.type === 'stdout' && f.data.includes('ready')) ready = true;
      },
    });
    await waitFor(() => ready);
    k.interrupt();
    const { outcome, stdout } = await pending;
    expect(outcome).toMatchObject({ cancelled: true, killed: false });
    expect(stdout).not.toContain('never');
    // The command's whole group (the shell and both sleeps) is gone, while the kernel lives on.
    const sleepers = execFileSync('ps', ['-eo', 'pid,ppid,args'])
      .toString()
      .split('\n')
      .filter((l) => l.includes('sleep 30.017'))
      .map((l) => Number(l.trim().split(/\s+/)[0]))
      .filter((pid) => pidAlive(pid));
    expect(sleepers).toEqual([]);
    expect(groupAlive(k.pid as number)).toBe(true);
  });

  it('shell commands read /dev/null, never the protocol pipe', async () => {
    const k = await startKernel();
    const { result } = await run(k, 'got = !cat\n(got, _exit_code)');
    expect(result?.['text/plain']).toBe('([], 0)');
    expect((await run(k, '!exit 4\n_exit_code')).result?.['text/plain']).toBe('4');
  });
});

/** A wheel made by hand (a zip with metadata): distribution omp-probe-dist, import name omp_probe. */
function makeWheel(dir: string, version: string): string {
  const name = `omp_probe_dist-${version}-py3-none-any.whl`;
  const script = `
import zipfile, sys
path, version = sys.argv[1], sys.argv[2]
info = "omp_probe_dist-%s.dist-info" % version
with zipfile.ZipFile(path, "w") as z:
    z.writestr("omp_probe/__init__.py", "VERSION = %r\\n" % version)
    z.writestr(info + "/METADATA", "Metadata-Version: 2.1\\nName: omp-probe-dist\\nVersion: %s\\n" % version)
    z.writestr(info + "/WHEEL", "Wheel-Version: 1.0\\nGenerator: hand\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
    z.writestr(info + "/top_level.txt", "omp_probe\\n")
    z.writestr(info + "/RECORD", "")
`;
  execFileSync('python3', ['-c', script, join(dir, name), version]);
  return join(dir, name);
}

describe('magics: %pip', () => {
  it('installs a local wheel and evicts its modules so the next import is fresh', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-pip-'));
    // (Not named venv or .venv: a sandbox keeps those read-only in the working directory.) Its
    // pip is the base interpreter's, seen through the system site-packages: installing pip into
    // a new venv (ensurepip) took 40 s of this test's 54 on a loaded machine. Installs still go
    // to the venv, as for any venv's interpreter.
    const venv = join(dir, 'env');
    execFileSync('python3', ['-m', 'venv', '--without-pip', '--system-site-packages', venv]);
    const wheels = join(dir, 'wheels');
    mkdirSync(wheels);
    const v1 = makeWheel(wheels, '1.0');
    const v2 = makeWheel(wheels, '2.0');
    const k = await startKernel({ python: join(venv, 'bin', 'python'), cwd: dir });
    const first = await run(k, `%pip install --no-index --quiet ${v1}\nimport omp_probe\nomp_probe.VERSION`);
    expect(first.outcome.error).toBeUndefined();
    expect(first.result?.['text/plain']).toBe("'1.0'");
    const second = await run(k, `%pip install --no-index --quiet ${v2}\nimport omp_probe\nomp_probe.VERSION`);
    expect(second.stdout).toContain('modules of the installed packages were unloaded');
    expect(second.result?.['text/plain']).toBe("'2.0'");
    // Through the shell, as IPython's: a pipe takes pip's output, and an install still evicts.
    const piped = await run(
      k,
      `%pip install --no-index --force-reinstall ${v1} | tr a-z A-Z\nimport omp_probe\nomp_probe.VERSION`,
    );
    expect(piped.stdout).toContain('SUCCESSFULLY INSTALLED OMP-PROBE-DIST-1.0');
    expect(piped.stdout).toContain('modules of the installed packages were unloaded');
    expect(piped.result?.['text/plain']).toBe("'1.0'");
    const head = await run(k, '%pip list 2>/dev/null | head -1');
    expect(head.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^Package +Version$/)]);
    // Into the venv, not the base interpreter whose pip it borrows.
    const where = await run(k, 'omp_probe.__file__');
    expect(where.result?.['text/plain']).toContain(`${join(venv, 'lib')}/`);
    // A venv and two pip runs: minutes on a loaded machine.
  }, 900_000);
});
