/**
 * Wrapping a kernel's command line in its sandbox: `sandboxCommand(settings, argv, cwd, env)`
 * gives the command to spawn instead (bwrap around the kernel, a shell that joins the memory
 * cgroup or sets the rlimit around that), the environment ($TMPDIR the kernel's own temp dir),
 * and the handle the kernel keeps: the runner's pid on the host (signals for the runner must
 * reach it inside its PID namespace), whether the memory limit stopped it, hints for its errors,
 * and the cleanup. The kernel's fds pass through bwrap untouched, whatever their layout.
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { artifactDir } from '../output/artifact.js';
import { isPrivateDir, privateDir } from '../output/privateDir.js';
import { pidExists } from '../process/processGroup.js';
import type { ErrorFrame } from '../protocol/index.js';
import { assertSandboxAvailable, bwrapArgs, findBwrap, probeBwrap } from './bwrap.js';
import { type MemoryCgroup, oomKills, removeCgroup, removeCgroupSync } from './cgroup.js';
import { annotateError, type HintPlaces } from './hints.js';
import { DEFAULT_PIDS_LIMIT, limitMemory, limitProcesses, type MemoryWrap } from './limits.js';
import { hiddenPlaces, readOnlyPlaces, within } from './places.js';
import { seccompProgram } from './seccomp.js';
import { memoryLimitOf, SandboxError, type SandboxSettings, sandboxFromEnv } from './settings.js';

/** The private parent (`<tmp>/omp-eval-sandbox-<uid>`, 0700) of every sandboxed kernel's temp dir. */
const TMP_PARENT = 'omp-eval-sandbox';
/**
 * The descriptor bwrap reads the seccomp filter from: the first after the kernel's own (0-5),
 * a pipe the host fills at spawn.
 */
const SECCOMP_FD = 6;

export interface KernelSandbox {
  readonly settings: SandboxSettings;
  /** The kernel's temp dir ($TMPDIR), when it runs in bwrap. */
  readonly tmp?: string;
  /** How the memory limit is enforced, if there is one. */
  readonly memory?: { limitMb: number; method: 'cgroup' | 'rlimit' };
  /** The runner's pid on the host, given the pid of the spawned process (bwrap's). */
  runnerPid(spawnedPid: number | undefined): number | undefined;
  /**
   * How the kernel ended, from how the spawned process did: bwrap exits with 128 + n when the
   * runner was killed by signal n, and that is reported as the signal (as without a sandbox).
   */
  processEnd(code: number | null, signal: NodeJS.Signals | null): ProcessEnd;
  /** The limit in MB when the memory limit is what ended the kernel; else undefined. */
  memoryExceeded(
    end: { code: number | null; signal: NodeJS.Signals | null },
    stderrTail: string,
  ): number | undefined;
  /** The error frame with a hint when the sandbox caused the error. */
  annotate(frame: ErrorFrame): ErrorFrame;
  /** Removes the temp dir and the cgroup (once the kernel's processes are gone). Idempotent. */
  dispose(): Promise<void>;
  /**
   * The seccomp filter as an open descriptor to give the spawned process at SECCOMP_FD (a spawn
   * that cannot pass a pipe: execa's); close it with closeSeccompFd once spawned.
   */
  seccompFd?(): number | undefined;
  closeSeccompFd?(): void;
  /** True when a cell of this sandbox may write at `path` (a real path). */
  writes(path: string): boolean;
}

interface ProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SandboxedCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** The seccomp filter to give the spawned process on SECCOMP_FD. */
  seccomp?: Buffer;
  /** Unset when the kernel runs as it is (sandbox off, no memory limit). */
  sandbox?: KernelSandbox;
}

/** Sandboxes whose kernels may still run: their temp dirs go when the host exits. */
const live = new Set<() => void>();
let exitHookInstalled = false;
let swept = false;

function trackForExit(cleanup: () => void): () => void {
  live.add(cleanup);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const fn of live) fn();
    });
  }
  return () => live.delete(cleanup);
}

/**
 * The command that runs `argv` in `settings`' sandbox (default: $OMP_EVAL_SANDBOX, else off).
 * Throws SandboxError when the sandbox cannot be had: never runs the kernel unsandboxed instead.
 */
export async function sandboxCommand(
  settings: SandboxSettings | undefined,
  argv: readonly string[],
  cwd: string,
  env: Record<string, string>,
): Promise<SandboxedCommand> {
  const s = settings ?? sandboxFromEnv();
  const limit = memoryLimitOf(s);
  if (s.mode === 'off' && !limit) return { file: argv[0] as string, args: argv.slice(1), env };
  let command = [...argv];
  let places: HintPlaces | undefined;
  let seccomp: Buffer | undefined;
  const kernelEnv = { ...env };
  if (s.mode !== 'off') {
    assertSandboxAvailable(s);
    seccomp = seccompProgram();
    const bwrap = findBwrap() as string;
    await probeBwrap(bwrap, s);
    const parent = tempParent();
    const real = { cwd: realpathSync(cwd), tmp: makeTempDir(parent), roots: s.writableRoots.map(checkRoot) };
    const writable = [...(s.mode === 'workspace-write' ? [real.cwd] : []), ...real.roots];
    places = real;
    // (The kernel's environment names the user's home and data folders; the host's fills gaps.)
    const userEnv = { ...process.env, ...env };
    const visible = (s.visible ?? []).filter((dir) => existsSync(dir));
    const bwrapPlaces = {
      ...real,
      hidden: [
        ...hiddenPlaces({ env: userEnv, parent, allowRead: s.allowRead ?? [] }),
        { path: artifactDir(), dir: true }, // the other scopes' outputs (artifact.ts)
      ],
      readOnly: [...readOnlyPlaces(writable, real.roots, userEnv), ...visible],
    };
    kernelEnv.TMPDIR = places.tmp;
    kernelEnv.MPLCONFIGDIR ??= join(places.tmp, 'matplotlib'); // ~/.config is read-only
    command = [bwrap, ...bwrapArgs(s, bwrapPlaces, SECCOMP_FD), ...command];
  }
  const memory = limit ? limitMemory(limit, s.memoryMethod ?? 'auto') : undefined;
  const pids = s.mode === 'off' ? undefined : limitProcesses(s.pidsLimit ?? DEFAULT_PIDS_LIMIT);
  const steps = [memory?.step, pids?.step].filter((step): step is string => step !== undefined);
  // One shell in front of the command takes every limit (a shell each cost a start each).
  if (steps.length)
    command = ['/bin/sh', '-c', `${steps.join(' && ')} && exec "$@"`, 'omp-eval-limits', ...command];
  const sandbox = new Sandbox(s, places, memory, seccomp, pids?.cgroup);
  return {
    file: command[0] as string,
    args: command.slice(1),
    env: kernelEnv,
    ...(seccomp ? { seccomp } : {}),
    sandbox,
  };
}

/**
 * `child_process.spawn(file, args, options)` in the sandbox of `settings`: the same child (its
 * pid is the one to signal for the process group), plus the sandbox handle when there is one.
 */
export async function spawnInSandbox(
  settings: SandboxSettings | undefined,
  file: string,
  args: readonly string[],
  options: SpawnOptions & { cwd: string; env: Record<string, string> },
): Promise<{ child: ChildProcess; sandbox?: KernelSandbox }> {
  const command = await sandboxCommand(settings, [file, ...args], options.cwd, options.env);
  const stdio = withSeccompFd(options.stdio, command.seccomp);
  const child = spawn(command.file, command.args, { ...options, env: command.env, stdio });
  if (command.seccomp) {
    // bwrap reads the filter to its end before it runs anything; the program fits in the pipe.
    const pipe = (child.stdio as unknown as (NodeJS.WritableStream | null)[])[SECCOMP_FD];
    pipe?.on('error', () => {}); // (a bwrap that failed to start: the child's exit says so)
    pipe?.end(command.seccomp);
  }
  return { child, ...(command.sandbox ? { sandbox: command.sandbox } : {}) };
}

/** The spawn's stdio with a pipe at SECCOMP_FD for the filter (the places between ignored). */
function withSeccompFd(stdio: SpawnOptions['stdio'], seccomp: Buffer | undefined): SpawnOptions['stdio'] {
  if (!seccomp) return stdio;
  const given = typeof stdio === 'string' ? [stdio, stdio, stdio] : [...(stdio ?? ['pipe', 'pipe', 'pipe'])];
  if (given.length > SECCOMP_FD) throw new Error(`fd ${SECCOMP_FD} is the sandbox's own`);
  while (given.length < SECCOMP_FD) given.push('ignore');
  return [...given, 'pipe'];
}

/** A writable root must be an existing directory; its real path is what gets bound. */
function checkRoot(dir: string): string {
  const full = resolve(dir);
  try {
    if (statSync(full).isDirectory()) return realpathSync(full);
  } catch {
    // reported below
  }
  throw new SandboxError(`--add-writable-root ${dir}: ${full} is not an existing directory`);
}

/**
 * This user's private parent of the kernels' temp dirs: a real directory (not a link) that this
 * user owns and no one else can write to, checked with lstat (privateDir). What is swept is
 * only ever found there: the shared temp directory's other entries are never touched.
 */
export function tempParent(base = tmpdir()): string {
  return realpathSync(privateDir(base, TMP_PARENT));
}

function makeTempDir(parent: string): string {
  if (!swept) {
    swept = true;
    sweepTempDirs(parent);
  }
  return realpathSync(mkdtempSync(join(parent, `${process.pid}-`)));
}

/**
 * Temp dirs of hosts that were killed before they could remove them, in this user's private
 * parent only (checked again just before: a parent that is not private is not swept). fs.rm
 * removes a link inside as a link, never what it points to.
 */
export function sweepTempDirs(parent: string): void {
  try {
    if (!isPrivateDir(parent)) return;
    for (const entry of readdirSync(parent)) {
      const pid = Number(entry.match(/^(\d+)-[A-Za-z0-9]{6}$/)?.[1]);
      if (!pid || pid === process.pid || pidExists(pid)) continue;
      rmSync(join(parent, entry), { recursive: true, force: true });
    }
  } catch {
    // an unreadable parent: nothing to sweep
  }
}

/** A process's children (Linux). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

class Sandbox implements KernelSandbox {
  readonly tmp?: string;
  readonly memory?: { limitMb: number; method: 'cgroup' | 'rlimit' };
  private runner?: number;
  private disposed?: Promise<void>;
  private readonly untrack: () => void;
  private filterFd?: number;

  constructor(
    readonly settings: SandboxSettings,
    private readonly places: HintPlaces | undefined,
    private readonly wrap: MemoryWrap | undefined,
    private readonly seccomp: Buffer | undefined,
    private readonly pids?: MemoryCgroup,
  ) {
    if (places) this.tmp = places.tmp;
    if (wrap) this.memory = { limitMb: wrap.limitMb, method: wrap.method };
    this.untrack = trackForExit(() => this.removeNow());
  }

  /**
   * bwrap (the spawned pid) starts the PID namespace's init, which starts the runner: the
   * runner is the init's child. Found once, when first needed (it exists once the kernel is up).
   */
  runnerPid(spawnedPid: number | undefined): number | undefined {
    if (!this.places || spawnedPid === undefined) return spawnedPid;
    if (this.runner === undefined) {
      const [init] = childrenOf(spawnedPid);
      const [runner] = init === undefined ? [] : childrenOf(init);
      this.runner = runner;
    }
    return this.runner ?? spawnedPid;
  }

  seccompFd(): number | undefined {
    if (!this.seccomp || !this.places) return undefined;
    // Written, opened and unlinked before anything runs in the sandbox: bwrap reads the open file.
    const file = join(this.places.tmp, '.seccomp');
    writeFileSync(file, this.seccomp, { mode: 0o600, flag: 'wx' });
    this.filterFd = openSync(file, 'r');
    rmSync(file);
    return this.filterFd;
  }

  closeSeccompFd(): void {
    if (this.filterFd !== undefined) closeSync(this.filterFd);
    this.filterFd = undefined;
  }

  writes(path: string): boolean {
    const p = this.places;
    if (!p || this.settings.mode === 'off') return true;
    const writable = [p.tmp, ...(this.settings.mode === 'workspace-write' ? [p.cwd] : []), ...p.roots];
    return writable.some((dir) => within(path, dir));
  }

  processEnd(code: number | null, signal: NodeJS.Signals | null): ProcessEnd {
    if (!this.places || signal !== null || code === null || code <= 128) return { code, signal };
    const name = Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0];
    return name ? { code: null, signal: name as NodeJS.Signals } : { code, signal };
  }

  memoryExceeded(end: ProcessEnd, stderrTail: string) {
    const wrap = this.wrap;
    if (!wrap) return undefined;
    if (wrap.cgroup) {
      const killed = end.signal === 'SIGKILL';
      return killed && oomKills(wrap.cgroup) > 0 ? wrap.limitMb : undefined;
    }
    // RLIMIT_DATA: Node aborts when an allocation fails; Python raises MemoryError (and lives).
    const failed = end.code !== 0 || end.signal !== null;
    return failed && /out of memory|MemoryError|bad_alloc|Cannot allocate memory/i.test(stderrTail)
      ? wrap.limitMb
      : undefined;
  }

  annotate(frame: ErrorFrame): ErrorFrame {
    const places = this.places ?? { cwd: '', tmp: '', roots: [] };
    return annotateError(frame, this.settings, places);
  }

  dispose(): Promise<void> {
    this.disposed ??= (async () => {
      if (this.wrap?.cgroup) await removeCgroup(this.wrap.cgroup);
      if (this.pids) await removeCgroup(this.pids);
      this.removeNow();
      this.untrack();
    })();
    return this.disposed;
  }

  /** What can be removed synchronously (the host's exit): the temp dir, an empty cgroup. */
  private removeNow(): void {
    if (this.places) rmSync(this.places.tmp, { recursive: true, force: true });
    if (this.wrap?.cgroup) removeCgroupSync(this.wrap.cgroup);
    if (this.pids) removeCgroupSync(this.pids);
  }
}
