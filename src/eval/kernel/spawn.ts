/**
 * Starting a kernel process: `python -u runner.py` or `node runner.cjs`, each in a process group
 * (and session) of its own, with the filtered environment, and the channels the host speaks on.
 *
 * Python: requests on stdin, frames on stdout, the bridge on fd 3 (a socket pair).
 * JavaScript: frames on fd 3, requests on fd 4, the bridge on fd 5; fd 1 and fd 2 are the running
 * cell's raw output. Its frames carry a per-kernel key (sent in the init request, never in the
 * environment, which a cell can read from /proc), so a frame a cell writes to fd 3 is not taken.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Duplex, Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../logger.js';
import { type KernelSandbox, spawnInSandbox } from '../sandbox/sandbox.js';
import { filterEnv, kernelEnv } from './env.js';
import { type ResolvedPython, resolvePython } from './python.js';
import { ensureRunnerFile } from './runnerFile.js';
import type { KernelLanguage, KernelOptions } from './types.js';

/** The JavaScript runner, beside the compiled code as in the sources (copied by the build). */
const JS_RUNNER = fileURLToPath(new URL('../../js/runner.cjs', import.meta.url));

export interface KernelProcess {
  child: ChildProcess;
  /** The program the kernel runs in (an interpreter, or node). */
  executable: string;
  python?: ResolvedPython;
  requests: Writable;
  frames: Readable;
  /** The process's own stderr (js: also the running cell's raw stderr). */
  stderr: Readable;
  /** js: the process's fd 1, the running cell's raw stdout. */
  rawStdout?: Readable;
  /** The bridge socket. */
  bridge?: Duplex;
  /** js: the secret part of the end-of-cell markers, so output cannot imitate one. */
  syncToken?: string;
  /** js: the key on every frame; a frame without it was not written by the runner. */
  frameKey?: string;
  /** The kernel's sandbox (bwrap, memory limit), when it runs in one. */
  sandbox?: KernelSandbox;
}

export async function spawnKernel(
  language: KernelLanguage,
  cwd: string,
  opts: KernelOptions,
  logger: Logger,
): Promise<KernelProcess> {
  return language === 'js' ? spawnNode(cwd, opts) : spawnPython(cwd, opts, logger);
}

async function spawnPython(cwd: string, opts: KernelOptions, logger: Logger): Promise<KernelProcess> {
  const hostEnv = opts.hostEnv ?? process.env;
  const python = opts.resolved ?? (await resolvePython({ interpreter: opts.python, cwd, env: hostEnv }));
  const runner = ensureRunnerFile({ logger });
  const { child, sandbox } = await spawnInSandbox(opts.sandbox, python.executable, ['-u', runner], {
    cwd,
    env: { ...kernelEnv(hostEnv, python, opts.passEnv), OMP_BRIDGE_FD: '3' },
    detached: true, // own process group: signals reach the cell's children, shutdown reaches them all
    // fd 3: the bridge, a socket pair only this host and this kernel hold.
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    windowsHide: true,
  });
  return {
    child,
    ...(sandbox ? { sandbox } : {}),
    executable: python.executable,
    python,
    requests: child.stdin as Writable,
    frames: child.stdout as Readable,
    stderr: child.stderr as Readable,
    ...(child.stdio[3] ? { bridge: child.stdio[3] as Duplex } : {}),
  };
}

async function spawnNode(cwd: string, opts: KernelOptions): Promise<KernelProcess> {
  // One secret serves as the frame key and in the end-of-cell markers.
  const key = randomBytes(16).toString('hex');
  const env = {
    ...filterEnv(opts.hostEnv ?? process.env, ['NODE_PATH', ...(opts.passEnv ?? [])]),
    OMP_BRIDGE_FD: '5',
  };
  const { child, sandbox } = await spawnInSandbox(opts.sandbox, process.execPath, [JS_RUNNER], {
    cwd,
    env,
    detached: true,
    // fd 3: frames out, fd 4: requests in, fd 5: the bridge; stdin is not the cells' to read.
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'],
    windowsHide: true,
  });
  return {
    child,
    ...(sandbox ? { sandbox } : {}),
    executable: process.execPath,
    requests: child.stdio[4] as Writable,
    frames: child.stdio[3] as Readable,
    stderr: child.stderr as Readable,
    rawStdout: child.stdout as Readable,
    ...((child.stdio as unknown[])[5] ? { bridge: (child.stdio as unknown[])[5] as Duplex } : {}),
    syncToken: key,
    frameKey: key,
  };
}
