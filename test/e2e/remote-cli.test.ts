/**
 * `omp-eval --jupyter URL` with `run`, `tool` and `mcp`: the real CLI against a real Jupyter
 * server (Debian's jupyter_server and ipykernel).
 */
import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { freePort, type JupyterServer, runningKernels, startJupyterServer } from '../helpers/jupyter.js';
import { evalCell, startStdio, stopAll, textOf } from '../helpers/mcp.js';

let server: JupyterServer;
let dir: string;

beforeAll(async () => {
  server = await startJupyterServer();
  dir = await mkdtemp(join(tmpdir(), 'omp-remote-cli-'));
});
afterAll(async () => {
  await stopAll();
  await server?.stop();
});

const remote = (...more: string[]) => ['--jupyter', server.url, '--token', server.token, ...more];

function script(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** A kernel started through the server's REST API, as another client would. */
async function restKernel(): Promise<string> {
  const { json } = await server.rest('POST', 'api/kernels', { name: 'python3' });
  return (json as { id: string }).id;
}

interface ToolOut {
  text: string;
  isError: boolean;
  cells: {
    status: string;
    text: string;
    timedOut: boolean;
    images: { mime: string }[];
    error?: { ename: string };
  }[];
}

async function tool(args: string[], cells: Record<string, unknown>[]): Promise<ToolOut> {
  const run = await cli([...args, 'tool'], { input: JSON.stringify({ cells }) });
  return JSON.parse(run.stdout) as ToolOut;
}

describe('omp-eval run --jupyter', () => {
  it('runs a three-cell script remotely: 1+1, names and %who, a matplotlib figure as an image', async () => {
    const path = script(
      'three.py',
      '1+1\n# %%\nalpha = 1\nbeta = 2\n%who\n# %%\nimport matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()\n',
    );
    const run = await cli([...remote(), 'run', path]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^2\nalpha\s+beta\s*\n<Figure size [^\n]*>\n\[image \d+×\d+ png\]\n$/);
    expect(await runningKernels(server)).toEqual([]); // the kernel it started is shut down
  });

  it('input() without a front end to ask fails clearly, as in a local kernel', async () => {
    const run = await cli([...remote(), 'run', script('input.py', 'input("name? ")\n')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/StdinNotImplementedError/);
  });

  it('Ctrl-C interrupts the cell through the server, and an attached kernel keeps its state', async () => {
    const id = await restKernel();
    const path = script('loop.py', 'kept = 5\n# %%\nprint("looping", flush=True)\nwhile True: pass\n');
    const run = await cli([...remote('--kernel-id', id), 'run', path], {
      onStdout: (out, child) => {
        if (out.includes('looping')) child.kill('SIGINT');
      },
    });
    expect(run.code).toBe(130);
    expect(run.stderr).toMatch(/KeyboardInterrupt/);
    const after = await cli([...remote('--kernel-id', id), 'run', script('kept.py', 'print(kept)\n')]);
    expect(after.stdout).toBe('5\n');
    expect(await runningKernels(server)).toContain(id);
    await server.rest('DELETE', `api/kernels/${id}`);
  });

  it('--timeout interrupts a cell that runs too long', async () => {
    const run = await cli([...remote('--timeout', '1'), 'run', script('slow.py', 'while True: pass\n')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/timed out after 1s; kernel interrupted but remains running/);
    expect(run.stderr).toMatch(/cell 1 of 1 \(line 1\) timed out/);
  });

  it('says clearly what is wrong with the server, the token, the kernel name or id', async () => {
    const one = script('one.py', '1+1\n');
    const port = await freePort();
    const cases: [string[], RegExp][] = [
      [
        ['--jupyter', `http://127.0.0.1:${port}`],
        /cannot reach the Jupyter server at 127\.0\.0\.1:\d+.*ECONNREFUSED/,
      ],
      [['--jupyter', server.url, '--token', 'nope'], /refused the token \(HTTP 403\)/],
      [[...remote('--kernel-name', 'nope')], /has no kernel named "nope"; it offers: python3/],
      [[...remote('--kernel-id', 'f00')], /has no kernel with id f00/],
    ];
    for (const [args, message] of cases) {
      const run = await cli([...args, 'run', one]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(message);
    }
    const usage = await cli(['--kernel-id', 'x', 'run', one]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch('--kernel-id needs a Jupyter server: --jupyter URL');
    const both = await cli([...remote('--kernel-id', 'x', '--kernel-name', 'y'), 'run', one]);
    expect(both.stderr).toMatch('not both');
    const scheme = await cli(['--jupyter', 'ftp://x', 'run', one]);
    expect(scheme.stderr).toMatch(/"jupyter\.url" in flags must be an http:\/\/ or https:\/\/ URL/);
  });
});

describe('omp-eval tool --jupyter', () => {
  it('runs cells remotely: 1+1, a pasted script in three cells, %who, an image, reset and a timeout', async () => {
    const out = await tool(remote(), [
      { language: 'py', code: '1+1' },
      { language: 'py', code: 'a = 1' },
      { language: 'py', code: 'b = a + 1' },
      { language: 'py', code: '%who' },
      { language: 'py', code: 'import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()' },
    ]);
    expect(out.cells.map((c) => c.status)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(out.cells[0]?.text).toBe('2\n');
    expect(out.cells[3]?.text).toMatch(/a\s+b/);
    expect(out.cells[4]?.images[0]?.mime).toBe('image/png');
    const timed = await tool(remote(), [{ language: 'py', code: 'while True: pass', timeout: 1 }]);
    expect(timed.cells[0]?.timedOut).toBe(true);
    const reset = await tool(remote(), [
      { language: 'py', code: 'x = 1' },
      { language: 'py', code: 'x', reset: true },
    ]);
    expect(reset.cells[1]?.error?.ename).toBe('NameError');
  });

  it('attaches with --kernel-id to a kernel started through the REST API and sees its names', async () => {
    const id = await restKernel();
    await tool(remote('--kernel-id', id), [{ language: 'py', code: 'defined_earlier = "yes"' }]);
    const out = await tool(remote('--kernel-id', id), [{ language: 'py', code: 'defined_earlier' }]);
    expect(out.cells[0]?.text).toBe("'yes'\n");
    // That kernel outlives the call: the text says the earlier cells' state persists.
    const failed = await tool(remote('--kernel-id', id), [
      { language: 'py', code: 'x = 1' },
      { language: 'py', code: '1 / 0' },
    ]);
    expect(failed.text).toContain('Earlier cells succeeded—their state persists.');
    await server.rest('DELETE', `api/kernels/${id}`);
  });

  it('answers in JSON when the server cannot be reached', async () => {
    const out = await tool(
      ['--jupyter', `http://127.0.0.1:${await freePort()}`],
      [{ language: 'py', code: '1' }],
    );
    expect(out.isError).toBe(true);
    expect(out.text).toMatch(/cannot reach the Jupyter server/);
  });
});

describe('omp-eval mcp --jupyter', () => {
  it('serves the eval tool with a remote kernel, state kept from call to call', async () => {
    const { client } = await startStdio({ args: [...remote(), 'mcp'] });
    expect(textOf(await evalCell(client, 'n = 41\nn + 1'))).toBe('42');
    expect(textOf(await evalCell(client, 'import sys\nprint(sys.executable)\nn'))).toBe(
      '/usr/bin/python3\n41',
    );
    expect(await runningKernels(server)).toHaveLength(1);
  });
});
