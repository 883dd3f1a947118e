/**
 * Starting a kernel process: `python -u runner.py` or `node runner.cjs`, each in a process group
 * (and session) of its own, with the filtered environment, and the channels the host speaks on.
 *
 * Both languages have one descriptor layout (docs/architecture.md, "Descriptors"):
 *   fd 0  /dev/null          the cells' stdin reads nothing (input() asks the host)
 *   fd 1  raw stdout         everything the process and its children write there, as written
 *   fd 2  raw stderr
 *   fd 3  frames out         NDJSON, every frame carrying the kernel's key
 *   fd 4  requests in        NDJSON
 *   fd 5  the bridge         a socket pair (agent(), completion())
 * The runner keeps private, non-inheritable copies of fds 3-5 (and of 1 and 2, for its ordering
 * markers) and closes the originals, so cells and their children hold none of them. The key is
 * sent in the init request, never in the environment (a cell can read that from /proc).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import type { Duplex, Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { KernelOptions } from '../kernel/types.js';
import type { Language } from '../language.js';
import type { Logger } from '../logger.js';
import { BRIDGE_FD, KERNEL_STDIO } from '../process/descriptors.js';
import { type KernelSandbox, spawnInSandbox } from '../sandbox/sandbox.js';
import { sandboxFromEnv } from '../sandbox/settings.js';
import { type EnvChoice, hostEnvFor, kernelEnv } from './env.js';
import { type ResolvedPython, resolvePython } from './python.js';
import { ensureRunnerFile, prepareBytecode } from './runnerFile.js';

/** The JavaScript runner, beside the compiled code as in the sources (copied by the build). */
const JS_RUNNER = fileURLToPath(new URL('../../js/runner.cjs', import.meta.url));

export { BRIDGE_FD };

export interface KernelProcess {
  child: ChildProcess;
  /** The program the kernel runs in (an interpreter, or node). */
  executable: string;
  python?: ResolvedPython;
  requests: Writable;
  frames: Readable;
  /** fd 1: the raw stdout of the process and its children. */
  rawStdout: Readable;
  /** fd 2: the raw stderr of the process and its children. */
  stderr: Readable;
  /** The bridge socket. */
  bridge?: Duplex;
  /** The key on every frame and in every ordering marker; a frame without it is not the runner's. */
  frameKey: string;
  /** The kernel's sandbox (bwrap, memory limit), when it runs in one. */
  sandbox?: KernelSandbox;
  /**
   * Requests wait for this (the kernel's bytecode checked: runner.py reads its package only after
   * the first request). A rejection means the kernel must not go on.
   */
  requestsReady?: Promise<void>;
}

export async function spawnKernel(
  language: Language,
  cwd: string,
  opts: KernelOptions,
  logger: Logger,
): Promise<KernelProcess> {
  const hostEnv = opts.hostEnv ?? process.env;
  const choice: EnvChoice = {
    pass: opts.passEnv ?? [],
    filter: opts.envFilter ?? true,
    sandboxed: (opts.sandbox ?? sandboxFromEnv()).mode !== 'off',
  };
  if (language === 'js') {
    const env = hostEnvFor(hostEnv, { ...choice, pass: ['NODE_PATH', ...(choice.pass ?? [])] });
    return spawnWithChannels(process.execPath, [JS_RUNNER], cwd, env, opts);
  }
  const python = opts.resolved ?? (await resolvePython({ interpreter: opts.python, cwd, env: hostEnv }));
  const runner = ensureRunnerFile({ logger });
  const env = kernelEnv(hostEnv, python, choice);
  const proc = await spawnWithChannels(python.executable, ['-u', runner], cwd, env, opts);
  return pythonKernel(proc, python, runner, hostEnv, logger);
}

/**
 * A Python kernel's process just spawned with `runner`: runner.py loads its package only once the
 * first request came, so the bytecode is checked while the interpreter starts, and the channel
 * holds the requests until then.
 */
export function pythonKernel(
  proc: KernelProcess,
  python: ResolvedPython,
  runner: string,
  hostEnv: NodeJS.ProcessEnv,
  logger: Logger,
  /** The process was let go already, its checks made (a recipe's: quickstart.ts). */
  released = false,
): KernelProcess {
  if (released) return { ...proc, python, requestsReady: Promise.resolve() };
  const interpreter = { executable: python.executable, version: python.version.join('.') };
  // The host runs the interpreter to compile the kernel's bytecode into the shared cache: never
  // one that a sandboxed cell could have written (it would run on the host, and its bytecode
  // would be loaded by later kernels). Such a kernel compiles its modules in memory instead.
  const compile = !proc.sandbox?.writes(realPath(python.executable));
  const requestsReady = prepareBytecode(runner, interpreter, hostEnv, logger, compile);
  // A blank line (no request: the runner skips it) lets the runner load its package now, while
  // the host may still be preparing its first request (a kernel started early: prestart.ts).
  requestsReady.then(
    () => {
      if (!proc.requests.destroyed) proc.requests.write('\n', () => {});
    },
    () => {},
  );
  return { ...proc, python, requestsReady };
}

/** Spawns `executable args` (in its sandbox, if any) in a process group of its own, with the kernel's descriptors. */
async function spawnWithChannels(
  executable: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  opts: KernelOptions,
): Promise<KernelProcess> {
  // The host guard starts with the channel, after this spawn: a host killed in between closes the
  // requests pipe, and a runner that reads its end exits.
  const { child, sandbox } = await spawnInSandbox(opts.sandbox, executable, args, {
    cwd,
    env: { ...env, OMP_BRIDGE_FD: String(BRIDGE_FD) },
    detached: true, // own process group: signals reach the cell's children, shutdown reaches them all
    stdio: [...KERNEL_STDIO],
    windowsHide: true,
  });
  return withChannels(child, executable, sandbox);
}

/** The kernel's channels on `child`, spawned with KERNEL_STDIO (here, or from a recipe: recipe.ts). */
export function withChannels(
  child: ChildProcess,
  executable: string,
  sandbox?: KernelSandbox,
): KernelProcess {
  const stdio = child.stdio as unknown as (Readable | Writable | Duplex | null)[];
  return {
    child,
    ...(sandbox ? { sandbox } : {}),
    executable,
    rawStdout: stdio[1] as Readable,
    stderr: stdio[2] as Readable,
    frames: stdio[3] as Readable,
    requests: stdio[4] as Writable,
    ...(stdio[BRIDGE_FD] ? { bridge: stdio[BRIDGE_FD] as Duplex } : {}),
    frameKey: randomBytes(16).toString('hex'),
  };
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
