/**
 * Wrapping a kernel's command line in its sandbox: `sandboxCommand(settings, argv, cwd, env)`
 * gives the command to spawn instead (bwrap around the kernel, a shell that joins the memory
 * cgroup or sets the rlimit around that), the environment ($TMPDIR the kernel's own temp dir),
 * and the handle the kernel keeps: the runner's pid on the host (signals for the runner must
 * reach it inside its PID namespace), whether the memory limit stopped it, hints for its errors,
 * and the cleanup. The kernel's fds pass through bwrap untouched, whatever their layout.
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pidExists } from '../kernel/processGroup.js';
import type { ErrorFrame } from '../protocol/index.js';
import { assertSandboxAvailable, bwrapArgs, findBwrap, probeBwrap } from './bwrap.js';
import {
  createMemoryCgroup,
  type MemoryCgroup,
  oomKills,
  procsFile,
  removeCgroup,
  removeCgroupSync,
} from './cgroup.js';
import { annotateError, type HintPlaces } from './hints.js';
import { memoryLimitOf, SandboxError, type SandboxSettings, sandboxFromEnv } from './settings.js';

const MIB = 1024 * 1024;
const TMP_PREFIX = 'omp-eval-sandbox-';

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
}

export interface ProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SandboxedCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
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
  const kernelEnv = { ...env };
  if (s.mode !== 'off') {
    assertSandboxAvailable(s);
    const bwrap = findBwrap() as string;
    await probeBwrap(bwrap, s);
    places = { cwd: realpathSync(cwd), tmp: makeTempDir(), roots: s.writableRoots.map(checkRoot) };
    kernelEnv.TMPDIR = places.tmp;
    kernelEnv.MPLCONFIGDIR ??= join(places.tmp, 'matplotlib'); // ~/.config is read-only
    command = [bwrap, ...bwrapArgs(s, places), ...command];
  }
  const memory = limit ? limitMemory(limit, s.memoryMethod ?? 'auto', command) : undefined;
  if (memory) command = memory.command;
  const sandbox = new Sandbox(s, places, memory);
  return { file: command[0] as string, args: command.slice(1), env: kernelEnv, sandbox };
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
  const child = spawn(command.file, command.args, { ...options, env: command.env });
  return { child, ...(command.sandbox ? { sandbox: command.sandbox } : {}) };
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

function makeTempDir(): string {
  if (!swept) {
    swept = true;
    sweepTempDirs();
  }
  return realpathSync(mkdtempSync(join(tmpdir(), `${TMP_PREFIX}${process.pid}-`)));
}

/** Temp dirs of hosts that were killed before they could remove them. */
function sweepTempDirs(): void {
  try {
    for (const entry of readdirSync(tmpdir())) {
      const pid = Number(entry.startsWith(TMP_PREFIX) && entry.slice(TMP_PREFIX.length).split('-')[0]);
      if (!pid || pid === process.pid || pidExists(pid)) continue;
      rmSync(join(tmpdir(), entry), { recursive: true, force: true });
    }
  } catch {
    // an unreadable temp dir: nothing to sweep
  }
}

interface MemoryWrap {
  limitMb: number;
  method: 'cgroup' | 'rlimit';
  cgroup?: MemoryCgroup;
  command: string[];
}

/**
 * A shell in front of the command puts it under the limit before it runs: it joins the cgroup
 * (children follow), or sets RLIMIT_DATA (inherited by children). RLIMIT_DATA, not RLIMIT_AS:
 * Node reserves far more address space than it uses and does not start under RLIMIT_AS ≤ 512 MB.
 */
function limitMemory(limitMb: number, method: 'auto' | 'cgroup' | 'rlimit', command: string[]): MemoryWrap {
  const cgroup = method === 'rlimit' ? undefined : createMemoryCgroup(limitMb * MIB);
  if (cgroup) {
    const join = ['/bin/sh', '-c', 'echo $$ > "$0" && exec "$@"', procsFile(cgroup)];
    return { limitMb, method: 'cgroup', cgroup, command: [...join, ...command] };
  }
  if (method === 'cgroup') throw new SandboxError('no memory cgroup can be made here for --memory-limit');
  const rlimit = ['/bin/sh', '-c', 'ulimit -d "$0" && exec "$@"', String(limitMb * 1024)];
  return { limitMb, method: 'rlimit', command: [...rlimit, ...command] };
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

  constructor(
    readonly settings: SandboxSettings,
    private readonly places: HintPlaces | undefined,
    private readonly wrap: MemoryWrap | undefined,
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
      this.removeNow();
      this.untrack();
    })();
    return this.disposed;
  }

  /** What can be removed synchronously (the host's exit): the temp dir, an empty cgroup. */
  private removeNow(): void {
    if (this.places) rmSync(this.places.tmp, { recursive: true, force: true });
    if (this.wrap?.cgroup) removeCgroupSync(this.wrap.cgroup);
  }
}
