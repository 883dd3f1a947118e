/**
 * Bubblewrap: where it is, whether it can make a sandbox here, and the command line that puts a
 * kernel in one (new PID, IPC and network namespaces, the root file system read-only, a /proc of
 * its own, writable only where the mode says).
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { which } from '../process/which.js';
import { SandboxError, type SandboxSettings } from './settings.js';

/** Names the bwrap binary when it is not the one on PATH (tests point it nowhere). */
const BWRAP_ENV = 'OMP_EVAL_BWRAP';

const OFF_HINT = 'or run with --sandbox off (setting sandbox.mode)';

/** The bwrap binary: $OMP_EVAL_BWRAP, else the first on PATH; undefined when there is none. */
export function findBwrap(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env[BWRAP_ENV]?.trim();
  if (!named) return which('bwrap', env.PATH);
  try {
    accessSync(named, constants.X_OK);
    return named;
  } catch {
    return undefined;
  }
}

/**
 * Why a sandboxed mode cannot run on this machine, or undefined when it can (as far as can be
 * told without starting it). The message names what to install and the flag that turns it off.
 */
export function sandboxProblem(
  s: SandboxSettings,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (s.mode === 'off') return undefined;
  if (platform === 'darwin') {
    return `The sandbox (${s.mode}) is not available on macOS yet (a sandbox-exec profile is planned); run with --sandbox off (setting sandbox.mode)`;
  }
  if (platform !== 'linux') {
    return `The sandbox (${s.mode}) needs Linux with bubblewrap; run with --sandbox off (setting sandbox.mode)`;
  }
  if (!findBwrap(env)) {
    const where = env[BWRAP_ENV]?.trim()
      ? ` (${BWRAP_ENV}=${env[BWRAP_ENV]} is not an executable)`
      : ' (bwrap is not on PATH)';
    return `The sandbox (${s.mode}) needs bubblewrap${where}: install the package bubblewrap (apt install bubblewrap), ${OFF_HINT}`;
  }
  return undefined;
}

/** Throws SandboxError when sandboxProblem finds one. */
export function assertSandboxAvailable(s: SandboxSettings, env: NodeJS.ProcessEnv = process.env): void {
  const problem = sandboxProblem(s, env);
  if (problem) throw new SandboxError(problem);
}

/** The namespaces a sandbox unshares; the network only when it is not allowed. */
function namespaceArgs(s: Pick<SandboxSettings, 'allowNetwork'>): string[] {
  return [
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-ipc',
    ...(s.allowNetwork ? [] : ['--unshare-net']),
    // Root on the host would keep its capabilities (and could remount / read-write).
    '--cap-drop',
    'ALL',
  ];
}

export interface BwrapPlaces {
  cwd: string;
  /** The kernel's own temp dir ($TMPDIR), always writable. */
  tmp: string;
  /** Writable roots, as real paths. */
  roots: readonly string[];
  /**
   * Hidden from the kernel: a directory becomes an empty tmpfs, a file an empty one (the user's
   * credentials, other kernels' temp dirs). Existing paths only (bwrap would create the rest).
   */
  hidden?: readonly { path: string; dir: boolean }[];
  /** Read-only even inside a writable directory (`.git`, `.venv`, the runner cache). */
  readOnly?: readonly string[];
}

/**
 * What the sandbox does to /proc as root: bwrap makes /proc/sys read-only only when a write check
 * succeeds, which fails once capabilities are dropped, and uid 0 without capabilities can still
 * write most sysctls (a cell set the host's core_pattern to a script of its own). So /proc/sys
 * is bound read-only explicitly (its net/ shows the sandbox's own namespace), and the trigger
 * files are masked (sysrq-trigger reboots the machine on a write by uid 0).
 */
const PROC_MASKED = ['/proc/sysrq-trigger', '/proc/kcore', '/proc/keys', '/proc/timer_list'];

/** (A masked file must exist: bwrap cannot create one in /proc. Kernels differ in which they have.) */
function procArgs(exists: (path: string) => boolean = existsSync): string[] {
  return [
    '--ro-bind',
    '/proc/sys',
    '/proc/sys',
    ...PROC_MASKED.filter(exists).flatMap((file) => ['--ro-bind', '/dev/null', file]),
  ];
}

/**
 * bwrap's arguments up to (and including) `--`: the command follows. The order matters (each
 * mount covers what came before it): the read-only root, the writable places, then what is
 * hidden or read-only inside them, then the kernel's temp dir (inside a hidden parent).
 */
export function bwrapArgs(s: SandboxSettings, places: BwrapPlaces, seccompFd?: number): string[] {
  const writable = [...(s.mode === 'workspace-write' ? [places.cwd] : []), ...places.roots];
  return [
    ...namespaceArgs(s),
    ...(seccompFd === undefined ? [] : ['--seccomp', String(seccompFd)]),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    ...procArgs(),
    ...writable.flatMap((dir) => ['--bind', dir, dir]),
    ...(places.hidden ?? []).flatMap(({ path, dir }) =>
      dir ? ['--tmpfs', path] : ['--ro-bind', '/dev/null', path],
    ),
    ...(places.readOnly ?? []).flatMap((path) => ['--ro-bind', path, path]),
    '--bind',
    places.tmp,
    places.tmp,
    '--chdir',
    places.cwd,
    '--',
  ];
}

const probes = new Map<string, Promise<void>>();

/**
 * Makes sure bwrap can build a sandbox here (user namespaces may be off, a container may forbid
 * them), once per binary and network choice; rejects with bwrap's own reason.
 */
export function probeBwrap(bwrap: string, s: Pick<SandboxSettings, 'allowNetwork' | 'mode'>): Promise<void> {
  const key = `${bwrap}\0${s.allowNetwork}`;
  let probe = probes.get(key);
  if (!probe) {
    const args = [...namespaceArgs(s), '--ro-bind', '/', '/', '--proc', '/proc', '--', 'true'];
    probe = new Promise<void>((resolve, reject) => {
      execFile(bwrap, args, { timeout: 10_000 }, (err, _stdout, stderr) => {
        if (!err) return resolve();
        const reason = stderr.trim() || err.message;
        reject(
          new SandboxError(
            `bubblewrap (${bwrap}) cannot create the sandbox (${s.mode}) on this machine: ${reason}; it needs user namespaces (or root), ${OFF_HINT}`,
          ),
        );
      });
    });
    probes.set(key, probe);
    probe.catch(() => probes.delete(key)); // asked again next time: the machine may change
  }
  return probe;
}

/** The sandbox can be had here: bwrap is installed and builds one (rejects with why not). */
export async function checkSandbox(s: SandboxSettings, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  assertSandboxAvailable(s, env);
  if (s.mode !== 'off') await probeBwrap(findBwrap(env) as string, s);
}
