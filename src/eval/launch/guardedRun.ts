/**
 * Running a program to its end, guarded like a kernel (a group and session of its own, ended
 * with the host or at its deadline), on the host or in a sandbox: the interpreter probe and the
 * bytecode compile. A module of its own: python.ts and bytecode.ts both use it.
 */

import { gated, openGate, readyHostGuard } from '../process/hostGuard.js';
import { bootTicks, signalGroup } from '../process/processGroup.js';
import { type KernelSandbox, sandboxCommand } from '../sandbox/sandbox.js';
import { SANDBOX_OFF, type SandboxSettings } from '../sandbox/settings.js';

export interface GuardedRun {
  stdout: string;
  stderr: string;
  failed: boolean;
  exitCode?: number;
  shortMessage?: string;
}

/**
 * Runs `path args` to its end (execa: bounded, timed) in a group and session of its own, guarded
 * like a kernel: a timeout or the host's death ends everything it started (a wrapper script's
 * children too), not only the process itself. Rejects when it timed out.
 */
export async function runGuarded(
  path: string,
  args: string[],
  opts: {
    env: NodeJS.ProcessEnv;
    timeoutMs: number;
    cwd?: string;
    maxBuffer?: number;
    what: string;
    /** Runs it inside this sandbox (read-only, network off: see probeSandbox). */
    sandbox?: SandboxSettings;
  },
): Promise<GuardedRun> {
  const { execa } = await import('execa');
  readyHostGuard();
  const gate = gated(path, args);
  const boxed = opts.sandbox ? await boxedCommand(opts.sandbox, gate, opts) : undefined;
  const { file, args: gatedArgs } = boxed ?? gate;
  const child = execa(file, gatedArgs, {
    env: boxed?.env ?? opts.env,
    extendEnv: false,
    detached: true,
    maxBuffer: opts.maxBuffer ?? 64 * 1024,
    reject: false,
    ...(boxed ? { stdio: boxed.stdio as never } : {}), // (execa types no descriptor numbers past fd 2)
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
  });
  boxed?.spawned();
  const guarded = openGate(child.pid, child.stdin); // (it starts once guarded; its stdin is then empty)
  let endedAt: number | undefined;
  child.once('exit', () => {
    endedAt = bootTicks();
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (child.pid) signalGroup(child.pid, 'SIGKILL', endedAt);
  }, opts.timeoutMs);
  let result: Awaited<typeof child>;
  try {
    result = await child;
  } finally {
    clearTimeout(timer);
    // What it left behind (a wrapper's background children) ends with it; its own id may be
    // another program's group by now, told apart by when its members started.
    if (child.pid) signalGroup(child.pid, 'SIGKILL', endedAt);
    guarded?.release();
    await boxed?.sandbox?.dispose();
  }
  if (timedOut) throw new Error(`${opts.what} timed out after ${opts.timeoutMs / 1000} s`);
  return {
    stdout: String(result.stdout),
    stderr: String(result.stderr),
    failed: result.failed,
    ...(result.exitCode !== undefined ? { exitCode: result.exitCode } : {}),
    ...(result.shortMessage ? { shortMessage: result.shortMessage } : {}),
  };
}

/**
 * The sandbox a probe or a compile runs in: the kernel's, read-only and without the network or a
 * memory cgroup. What runs there may be a cell's work (a `.venv/bin/python` written by a
 * sandboxed cell): it must never run on the host.
 */
export function probeSandbox(kernel: SandboxSettings): SandboxSettings {
  return {
    ...SANDBOX_OFF,
    mode: 'read-only',
    memoryLimitMb: 0,
    ...(kernel.allowRead ? { allowRead: kernel.allowRead } : {}),
  };
}

/** `gate` wrapped in `settings`' sandbox, with the descriptor bwrap reads its filter from. */
async function boxedCommand(
  settings: SandboxSettings,
  gate: { file: string; args: string[] },
  opts: { env: NodeJS.ProcessEnv; cwd?: string },
): Promise<{
  file: string;
  args: string[];
  env: Record<string, string>;
  stdio: ['pipe', 'pipe', 'pipe', ...('ignore' | number)[]];
  sandbox?: KernelSandbox;
  spawned: () => void;
}> {
  const env = Object.fromEntries(Object.entries(opts.env).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
  const command = await sandboxCommand(settings, [gate.file, ...gate.args], opts.cwd ?? process.cwd(), env);
  const fd = command.sandbox?.seccompFd?.();
  const stdio: ['pipe', 'pipe', 'pipe', ...('ignore' | number)[]] = [
    'pipe',
    'pipe',
    'pipe',
    'ignore',
    'ignore',
    'ignore',
  ];
  if (fd !== undefined) stdio.push(fd);
  return {
    file: command.file,
    args: command.args,
    env: command.env,
    stdio,
    ...(command.sandbox ? { sandbox: command.sandbox } : {}),
    spawned: () => command.sandbox?.closeSeccompFd?.(),
  };
}
