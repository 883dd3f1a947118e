/**
 * A real Jupyter server for the remote-kernel tests: Debian's jupyter_server under /usr/bin/python3
 * (with ipykernel), on 127.0.0.1, a free port and a random token, its Jupyter and IPython
 * directories private to it. Ready when its REST API answers; stopped (and its kernels with it)
 * by stop().
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deadlineIn } from './kernel.js';

export const SYSTEM_PYTHON = '/usr/bin/python3';

export interface JupyterServer {
  url: string;
  token: string;
  port: number;
  /** The server's root directory (the kernels' working directory). */
  root: string;
  proc: ChildProcess;
  /** A REST call with the token: status and parsed JSON (or null). */
  rest: (method: string, path: string, body?: unknown) => Promise<{ status: number; json: unknown }>;
  /** Stops the server (SIGTERM; SIGKILL if it lingers) and waits for it to exit. */
  stop: (signal?: NodeJS.Signals) => Promise<void>;
  /** The end of what the server logged, for failure messages. */
  log: () => string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Extra kernelspecs the server offers: name → kernel.json contents. */
export type KernelSpecs = Record<string, Record<string, unknown>>;

export async function startJupyterServer(opts: { kernelspecs?: KernelSpecs } = {}): Promise<JupyterServer> {
  // Short names: the kernels' Unix sockets are in runtime/, and a socket's path has at most 107 bytes.
  const home = mkdtempSync(join(tmpdir(), 'oj-'));
  const root = join(home, 'root');
  const data = join(home, 'data');
  mkdirSync(root);
  for (const [name, spec] of Object.entries(opts.kernelspecs ?? {})) {
    mkdirSync(join(data, 'kernels', name), { recursive: true });
    writeFileSync(join(data, 'kernels', name, 'kernel.json'), JSON.stringify(spec));
  }
  const port = await freePort();
  const token = randomBytes(16).toString('hex');
  const logFile = join(home, 'server.log');
  const { openSync } = await import('node:fs');
  const out = openSync(logFile, 'a');
  const proc = spawn(
    SYSTEM_PYTHON,
    [
      '-m',
      'jupyter_server',
      '--allow-root',
      '--ServerApp.ip=127.0.0.1',
      `--ServerApp.port=${port}`,
      '--ServerApp.port_retries=0',
      `--ServerApp.token=${token}`,
      '--ServerApp.open_browser=False',
      // Kernels talk over Unix sockets: TCP ports picked at random collide under load (the kernel
      // then dies binding one, and the server restarts it while a test talks to it).
      '--KernelManager.transport=ipc',
      `--ServerApp.root_dir=${root}`,
    ],
    {
      cwd: root,
      stdio: ['ignore', out, out],
      env: {
        ...process.env,
        JUPYTER_RUNTIME_DIR: join(home, 'rt'),
        JUPYTER_DATA_DIR: data,
        JUPYTER_CONFIG_DIR: join(home, 'config'),
        IPYTHONDIR: join(home, 'ipython'),
      },
    },
  );
  const log = () => readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n');
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    proc.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const url = `http://127.0.0.1:${port}/`;
  const rest = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(new URL(path, url), {
      method,
      headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : null };
  };
  const until = deadlineIn(60_000);
  for (;;) {
    if (exited) throw new Error(`the Jupyter server exited while starting:\n${log()}`);
    const status = await rest('GET', 'api/kernelspecs').then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    if (Date.now() > until) throw new Error(`the Jupyter server did not start:\n${log()}`);
    await sleep(100);
  }
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (exited) return;
    proc.kill(signal);
    const killed = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    await exit;
    clearTimeout(killed);
  };
  return { url, token, port, root, proc, rest, stop, log };
}

/** The ids of the kernels running on the server. */
export async function runningKernels(server: JupyterServer): Promise<string[]> {
  const { json } = await server.rest('GET', 'api/kernels');
  return (json as { id: string }[]).map((k) => k.id);
}
