/**
 * Remote kernels (issue 20): a warm `1+1` round trip and 200,000 printed lines through a real
 * Jupyter server (started here on 127.0.0.1 with a random token), against the local kernel on the
 * same interpreter, side by side in one run. The server's output rate limit is off, as a user
 * who prints that much sets it. Needs Debian's python3-jupyter-server and
 * python3-ipykernel under /usr/bin/python3; skipped with a note without them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Kernel, type KernelHandle, resolvePython } from '../src/eval/index.js';
import { remoteKernelFactory } from '../src/eval/remote/factory.js';
import { type BenchRow, ms, printTable, scratchDir, timeIt } from './lib.js';

const PYTHON = '/usr/bin/python3';
const LINES = 200_000;
const LOOP = `for i in range(${LINES}):\n    print('${'x'.repeat(42)}', i)`;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A Jupyter server of our own; resolves once its REST API answers. */
async function startServer(): Promise<{ url: string; token: string; proc: ChildProcess }> {
  const home = scratchDir('omp-bench-jupyter-');
  const root = join(home, 'root');
  mkdirSync(root);
  const port = await freePort();
  const token = randomBytes(16).toString('hex');
  const proc = spawn(
    PYTHON,
    [
      '-m',
      'jupyter_server',
      '--allow-root',
      '--ServerApp.ip=127.0.0.1',
      `--ServerApp.port=${port}`,
      '--ServerApp.port_retries=0',
      `--ServerApp.token=${token}`,
      '--ServerApp.open_browser=False',
      `--ServerApp.root_dir=${root}`,
      // The server's default limit (1 MB/s) drops most of the 200k lines (the cell says so).
      '--ServerApp.iopub_data_rate_limit=0',
    ],
    {
      cwd: root,
      stdio: 'ignore',
      env: {
        ...process.env,
        JUPYTER_RUNTIME_DIR: join(home, 'runtime'),
        JUPYTER_CONFIG_DIR: join(home, 'config'),
        IPYTHONDIR: join(home, 'ipython'),
      },
    },
  );
  let exited = false;
  proc.once('exit', () => {
    exited = true;
  });
  const url = `http://127.0.0.1:${port}/`;
  const until = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error('the Jupyter server exited while starting');
    const ok = await fetch(new URL('api/kernelspecs', url), { headers: { Authorization: `token ${token}` } })
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return { url, token, proc };
    if (Date.now() > until) throw new Error('the Jupyter server did not start within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The warm round trip of 1+1 (median) and the time of the 200k-line loop (median), all output received. */
async function measure(kernel: KernelHandle, rounds: number): Promise<{ roundTrip: number; print: number }> {
  for (let i = 0; i < 50; i++) await kernel.execute('1+1');
  const roundTrip = await timeIt(rounds, async () => {
    await kernel.execute('1+1');
  });
  const print = await timeIt(3, async () => {
    let received = 0;
    const outcome = await kernel.execute(LOOP, {
      onFrame: (f) => {
        if (f.type === 'stdout') received += f.data.length;
      },
    });
    if (outcome.status !== 'ok' || received < LINES * 45)
      throw new Error(`the print loop lost output: ${received} chars, ${outcome.status}`);
  });
  return { roundTrip, print };
}

export async function remoteBench(): Promise<BenchRow[]> {
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer();
  } catch (err) {
    process.stderr.write(`(remote kernel benchmark skipped: ${(err as Error).message})\n`);
    return [];
  }
  try {
    const resolved = await resolvePython({ interpreter: PYTHON, cwd: process.cwd() });
    const local = await Kernel.start({ resolved });
    const localTimes = await measure(local, 300);
    await local.shutdown();
    const remote = await remoteKernelFactory({ url: server.url, token: server.token })({});
    const remoteTimes = await measure(remote, 300);
    await remote.shutdown();
    const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}× the local`;
    return [
      {
        what: 'remote kernel: warm round trip of 1+1',
        omp: `${ms(remoteTimes.roundTrip)} (Jupyter server)`,
        baseline: `${ms(localTimes.roundTrip)} (local kernel)`,
        ratio: ratio(remoteTimes.roundTrip, localTimes.roundTrip),
        target: 'report (issue 20)',
      },
      {
        what: `remote kernel: ${LINES / 1000}k lines printed`,
        omp: `${ms(remoteTimes.print)} (Jupyter server)`,
        baseline: `${ms(localTimes.print)} (local kernel)`,
        ratio: ratio(remoteTimes.print, localTimes.print),
        target: 'report (issue 20)',
      },
    ];
  } finally {
    server.proc.kill('SIGTERM');
  }
}

const rows = await remoteBench();
if (rows.length) printTable(rows);
