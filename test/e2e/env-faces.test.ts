/**
 * The person's environment in each face (issue 43, item 3), through the real CLI and real
 * kernels: the notebook, line mode and `run` give the kernel, `!cmd`, `%%bash` and `%pip` the
 * whole environment; `tool` and `mcp` keep the spec's filter; `--env-filter on|off` overrides, and
 * a sandboxed kernel still gets no credentials.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { evalCell, startStdio, stopAll, textOf } from '../helpers/mcp.js';
import { openNotebook, type Screen } from '../helpers/pty.js';

const INDEX = 'http://pypi.omp-env-test.invalid/simple';
const ENV = {
  PIP_INDEX_URL: INDEX,
  CUDA_VISIBLE_DEVICES: '7',
  JAVA_HOME: '/opt/omp-env-test-java',
  OMP_NUM_THREADS: '5',
  DATABASE_URL: 'postgres://app:omp-env-secret@db/app',
};

const KERNEL =
  'import os; print("kernel=%s db=%s" % (os.environ.get("CUDA_VISIBLE_DEVICES"), os.environ.get("DATABASE_URL")))';
const BANG = '!echo "bang=$JAVA_HOME"';
const BASH = '%%bash\necho "bash=$OMP_NUM_THREADS"';
const PIP = '%pip config list';

/** What a face printed when its kernel had the whole environment. */
function expectWhole(text: string) {
  expect(text).toContain(`kernel=7 db=${ENV.DATABASE_URL}`);
  expect(text).toContain('bang=/opt/omp-env-test-java');
}

function expectFiltered(text: string) {
  expect(text).toContain('kernel=None db=None');
  expect(text).toMatch(/^bang=$/m);
  expect(text).not.toContain('omp-env-secret');
}

function script(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'omp-envf-')), 'env.py');
  writeFileSync(file, ['# %%', KERNEL, BANG, '# %%', BASH, '# %%', PIP, ''].join('\n'));
  return file;
}

describe('run (a person)', () => {
  it('gives the kernel, !cmd, %%bash and %pip the whole environment', async () => {
    const r = await cli(['run', script()], { env: ENV });
    expect(r.code).toBe(0);
    expectWhole(r.stdout);
    expect(r.stdout).toContain('bash=5');
    expect(r.stdout).toContain(`index-url='${INDEX}'`); // %pip sees the company mirror
  });

  it('--env-filter on: the spec filter, for the kernel and its commands', async () => {
    const r = await cli(['--env-filter', 'on', 'run', script()], { env: ENV });
    expect(r.code).toBe(0);
    expectFiltered(r.stdout);
    expect(r.stdout).toMatch(/^bash=$/m);
    expect(r.stdout).not.toContain(INDEX);
  });

  it('refuses another value with a clear message', async () => {
    const r = await cli(['--env-filter', 'maybe', 'run', script()]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("option '--env-filter <on|off>' argument 'maybe' is invalid");
  });
});

describe('line mode (a person)', () => {
  it('gives the kernel and !cmd the whole environment', async () => {
    const r = await cli([], { input: `${KERNEL}\n${BANG}\n`, env: ENV });
    expectWhole(r.stdout);
  });
});

describe('tool (an agent)', () => {
  const input = JSON.stringify({
    cells: [KERNEL, BANG, BASH, PIP].map((code) => ({ language: 'py', code })),
  });

  it('keeps the spec filter by default', async () => {
    const r = await cli(['tool'], { input, env: ENV });
    const text = JSON.parse(r.stdout).text as string;
    expectFiltered(text);
    expect(text).toMatch(/^bash=$/m);
    expect(text).not.toContain(INDEX);
  });

  it('--env-filter off: the whole environment', async () => {
    const r = await cli(['tool', '--env-filter', 'off'], { input, env: ENV });
    const text = JSON.parse(r.stdout).text as string;
    expectWhole(text);
    expect(text).toContain('bash=5');
    expect(text).toContain(`index-url='${INDEX}'`);
  });
});

describe('mcp (an agent, sandboxed)', () => {
  afterAll(stopAll);

  it('keeps the spec filter by default', async () => {
    const { client } = await startStdio({ env: ENV });
    expectFiltered(textOf(await evalCell(client, `${KERNEL}\n${BANG}`)));
  });

  it('--env-filter off: the whole environment, but no credentials while the sandbox is on', async () => {
    const { client } = await startStdio({ args: ['--env-filter', 'off', 'mcp'], env: ENV });
    const text = textOf(await evalCell(client, `${KERNEL}\n${BANG}`));
    expect(text).toContain('kernel=7 db=None'); // DATABASE_URL holds a password
    expect(text).toContain('bang=/opt/omp-env-test-java');
    expect(text).not.toContain('omp-env-secret');
  });
});

describe('the notebook (a person)', () => {
  const open: Screen[] = [];
  afterEach(() => {
    for (const s of open.splice(0)) s.kill();
  });

  async function start(args: string[]) {
    const s = openNotebook(args, { columns: 140, env: ENV });
    open.push(s);
    await s.waitFor((t) => t.includes('In [1]:') && t.includes('● idle'), 'the prompt and an idle kernel');
    return s;
  }

  it('gives the kernel and !cmd the whole environment, and says so on the status line', async () => {
    const s = await start([]);
    expect(s.text()).toContain('env whole');
    await s.run(KERNEL);
    await s.waitFor((t) => t.includes(`kernel=7 db=${ENV.DATABASE_URL}`), "the shell's variables");
    await s.run(BANG);
    await s.waitFor((t) => t.includes('bang=/opt/omp-env-test-java'), 'JAVA_HOME in !cmd');
  });

  it('--env-filter on: filtered, and the status line says so', async () => {
    const s = await start(['--env-filter', 'on']);
    expect(s.text()).toContain('env filtered');
    await s.run(KERNEL);
    await s.waitFor((t) => t.includes('kernel=None db=None'), 'the filtered environment');
  });
});
