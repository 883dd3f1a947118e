/**
 * The executor: runs cells for every front end (the notebook, `omp-eval run`, the eval tool).
 *
 * In `session` mode kernels are retained per session id + working directory + interpreter and
 * shared by every owner of that key; calls on one key queue. In `per-call` mode each run gets a
 * fresh kernel that is shut down afterwards.
 */
import { createHash } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import type { KernelHandle } from '../kernel/handle.js';
import { Kernel } from '../kernel/kernel.js';
import { describeExit, type KernelExit } from '../kernel/types.js';
import type { Language } from '../language.js';
import { PythonNotFoundError, type ResolvedPython, resolvePython } from '../launch/python.js';
import { type Logger, silentLogger } from '../logger.js';
import { artifactDir, configureArtifacts } from '../output/artifact.js';
import { unknownPerfSwitches, unknownPerfSwitchWarning } from '../perfOff.js';
import type { BridgeHandler } from '../protocol/index.js';
import { remoteKernelFactories } from '../remote/factory.js';
import { serverLabel } from '../remote/server.js';
import { assertSandboxAvailable } from '../sandbox/bwrap.js';
import { type SandboxSettings, sandboxOf } from '../sandbox/settings.js';
import { DEFAULT_SETTINGS, type Settings } from '../settings.js';
import { BridgeActivity } from './bridgeActivity.js';
import { limitBridge } from './bridgeLimit.js';
import { commandBridge } from './commandBridge.js';
import { KernelSet } from './kernelSet.js';
import type { CellRequest, CellResult } from './results.js';
import { Session, type SessionHost } from './session.js';
import {
  ExecutorClosedError,
  ExecutorError,
  type ExecutorOptions,
  type RunOptions,
  type SessionOptions,
} from './types.js';

/** Validates the working directory and returns its real path. */
export function checkCwd(cwd: string): string {
  const full = resolvePath(cwd);
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(full);
  } catch {
    throw new ExecutorError(`Working directory does not exist: ${full}`);
  }
  if (!st.isDirectory()) throw new ExecutorError(`Working directory is not a directory: ${full}`);
  return realpathSync(full);
}

export class Executor implements SessionHost {
  readonly settings: Settings;
  readonly logger: Logger;
  /** The kernels' sandbox (settings, else $OMP_EVAL_SANDBOX, else off). */
  readonly sandbox: SandboxSettings;
  /** The Jupyter server that runs the Python cells, as messages name it (`host:8888`); unset: local. */
  readonly jupyter?: string;
  private readonly sets = new Map<string, KernelSet>();
  /** Sessions the executor itself owns for the eval tool, by key: they live until dispose(). */
  private readonly retained = new Map<string, Session>();
  private sessionAbort = new AbortController();
  /** Aborted by dispose(): kernels that are still starting stop. */
  private readonly closing = new AbortController();
  private disposed = false;
  private disposing?: Promise<void>;
  private readonly bridge: BridgeHandler;
  /** The host's count of bridge calls in flight, by cell: what holds a cell's timeout. */
  readonly bridgeActivity = new BridgeActivity();
  private readonly kernelFactories: ExecutorOptions['kernelFactories'];

  constructor(private readonly opts: ExecutorOptions = {}) {
    this.settings = { ...DEFAULT_SETTINGS, ...opts.settings };
    this.kernelFactories = opts.kernelFactories ?? remoteKernelFactories(this.settings, this.hostEnv);
    this.logger = opts.logger ?? silentLogger;
    const unknownSwitches = unknownPerfSwitches();
    if (unknownSwitches.length) this.logger.warn(unknownPerfSwitchWarning(unknownSwitches));
    this.artifactScope = opts.artifactScope ?? workspaceScope(process.cwd());
    this.sandbox = sandboxOf(this.settings);
    const jupyterUrl = this.settings['jupyter.url'];
    if (jupyterUrl) this.jupyter = serverLabel(jupyterUrl);
    assertSandboxAvailable(this.sandbox); // a sandbox that cannot be had fails now, never silently
    const agent = this.settings['bridge.agentCommand'];
    const completion = this.settings['bridge.completionCommand'];
    // A call waiting for its turn counts as bridge activity too (the cell's timeout pauses).
    this.bridge = this.bridgeActivity.wrap(
      limitBridge(
        opts.bridge ??
          commandBridge({
            ...(agent ? { agent } : {}),
            ...(completion ? { completion } : {}),
            artifactDir: () => this.artifactDir ?? artifactDir(),
          }),
        this.settings['bridge.maxConcurrent'],
      ),
    );
    configureArtifacts({
      maxFileBytes: this.settings['artifacts.maxFileMB'] * 1e6,
      maxTotalBytes: this.settings['artifacts.maxTotalMB'] * 1e6,
    });
  }

  private readonly artifactScope: string;
  /**
   * This executor's folder of artifacts under the user's artifacts folder, the only one its
   * sandboxed kernels can see: by default one per working directory (commands run one after
   * the other there read each other's outputs, as `omp-eval tool` calls do), one per session
   * for the MCP server's. Asked anew each time (as the folder itself is): $TMPDIR may change.
   */
  get artifactDir(): string | undefined {
    try {
      return artifactDir(this.artifactScope);
    } catch {
      return undefined; // no folder (a temp dir gone): each artifact then says why it is missing
    }
  }

  private get hostEnv() {
    return this.opts.hostEnv ?? process.env;
  }

  get defaultTimeout(): number {
    return this.settings['eval.timeout'];
  }

  /** Aborted by interruptAll() and dispose(). */
  get sessionSignal(): AbortSignal {
    return this.sessionAbort.signal;
  }

  /**
   * Resolves the interpreter for a working directory (the setting, else discovery). With the
   * sandbox on, each candidate is probed inside it: a candidate in a writable place may be a
   * cell's work.
   */
  resolvePython(cwd: string): Promise<ResolvedPython> {
    return resolvePython({
      interpreter: this.settings['python.interpreter'],
      cwd,
      env: this.hostEnv,
      sandbox: this.sandbox,
    });
  }

  /** Becomes an owner of the kernels for (id, cwd, interpreter). Release it when done. */
  async session(options: SessionOptions = {}): Promise<Session> {
    if (this.disposed) throw new ExecutorError('the executor has been disposed');
    const cwd = checkCwd(options.cwd ?? process.cwd());
    const mode = options.mode ?? this.settings['python.kernelMode'];
    const owner = `${options.id ?? 'default'}\0${cwd}`;
    const retain = options.retain === true && mode === 'session';
    const pinned = retain ? this.retainedOf(owner) : undefined;
    if (pinned) {
      await this.noteOtherInterpreter(pinned);
      return pinned;
    }
    let python: ResolvedPython | undefined;
    let pythonError: Error | undefined;
    // A py kernel made elsewhere (on a Jupyter server) needs no local interpreter.
    if (!this.kernelFactories?.py) {
      try {
        python = await this.resolvePython(cwd);
      } catch (err) {
        if (options.requirePython !== false || !(err instanceof PythonNotFoundError)) throw err;
        pythonError = err;
      }
    }
    const key = mode === 'per-call' ? `per-call\0${Math.random()}` : `${owner}\0${interpreterKey(python)}`;
    let set = this.sets.get(key);
    if (!set) {
      set = new KernelSet(key, cwd, python, pythonError, options.script);
      this.sets.set(key, set);
    }
    set.owners++;
    const session = new Session(this, set, mode);
    if (retain) this.retained.set(key, session);
    return session;
  }

  /** Runs cells in a session that exists only for this call. */
  async runOnce(cells: CellRequest[], options: SessionOptions & RunOptions = {}): Promise<CellResult[]> {
    const session = await this.session(options);
    try {
      return await session.run(cells, options);
    } finally {
      await session.release();
    }
  }

  /** The retained session of (id, cwd), whatever its interpreter. */
  private retainedOf(owner: string): Session | undefined {
    for (const [key, session] of this.retained) if (key.startsWith(`${owner}\0`)) return session;
    return undefined;
  }

  /**
   * A retained session keeps the interpreter it started with (its names live in that kernel):
   * when another would now be chosen (a `.venv` made since), the next result says so, once per
   * interpreter. Resolving probes inside the sandbox, if there is one.
   */
  async noteOtherInterpreter(session: Session): Promise<void> {
    if (this.kernelFactories?.py || !session.python) return;
    let now: ResolvedPython;
    try {
      now = await this.resolvePython(session.cwd);
    } catch {
      return;
    }
    const key = interpreterKey(now);
    if (key === interpreterKey(session.python) || session.noticedInterpreters.has(key)) return;
    session.noticedInterpreters.add(key);
    const kept = session.python;
    session.notify(
      `A different Python would now be chosen here: ${now.executable} (Python ${now.version.join('.')}, from ${now.source}). ` +
        `This session keeps ${kept.executable} (Python ${kept.version.join('.')}) and its names; a new session uses the new one (the MCP restart tool, a new omp-eval).`,
    );
  }

  /** @internal A session's owner let go; the last one shuts the kernels down. */
  async release(set: KernelSet): Promise<void> {
    set.owners--;
    if (set.owners > 0) return;
    this.sets.delete(set.key);
    await set.lock;
    await set.shutdown();
  }

  /** @internal A live kernel of `language` for the set, replacing a dead (or dying) one. */
  async kernelFor(set: KernelSet, language: Language, notices: string[]): Promise<KernelHandle> {
    notices.push(...set.pendingNotices.splice(0));
    const previous = set.get(language);
    if (previous && previous.state !== 'dead' && previous.state !== 'stopping') return previous;
    // One start at a time: the notebook's start() and a cell typed meanwhile share one kernel
    // (two starts would each make one, and the set would keep only the later).
    const pending = set.starting.get(language);
    if (pending) return pending;
    const start = this.startKernel(set, language, previous, notices);
    set.starting.set(language, start);
    try {
      return await start;
    } finally {
      set.starting.delete(language);
    }
  }

  private async startKernel(
    set: KernelSet,
    language: Language,
    previous: KernelHandle | undefined,
    notices: string[],
  ): Promise<KernelHandle> {
    if (previous?.state === 'stopping') await previous.shutdown();
    // (A restart takes the kernel out of the set first: a kernel found here ended unasked.)
    if (previous?.exit) notices.push(replacedNotice(previous.label, previous.exit));
    if (language === 'py' && set.python) {
      const skipped = skippedNotice(set.python);
      if (skipped) notices.push(skipped);
    }
    set.remove(language);
    const factory = this.kernelFactories?.[language];
    if (language === 'py' && !set.python && !factory) {
      throw new ExecutorError(
        `The Python backend is not available: ${set.pythonError?.message ?? 'no Python'}`,
      );
    }
    const spawned =
      language === 'py' && !factory && set.python && this.sandbox.mode === 'off'
        ? this.opts.prestarted?.take(
            set.cwd,
            set.python,
            this.hostEnv,
            this.settings['env.pass'],
            this.settings['env.filter'] ?? true,
          )
        : undefined;
    const kernel = await (factory ?? Kernel.start)({
      language,
      ...(spawned ? { spawned } : {}),
      cwd: set.cwd,
      ...(language === 'py' && set.python ? { resolved: set.python } : {}),
      hostEnv: this.hostEnv,
      passEnv: this.settings['env.pass'],
      envFilter: this.settings['env.filter'] ?? true,
      bridge: this.bridge,
      logger: this.logger,
      env: { ...this.artifactEnv(), ...this.opts.kernelEnv },
      sandbox:
        this.sandbox.mode === 'off' ? this.sandbox : { ...this.sandbox, visible: this.visibleArtifacts() },
      ...(this.opts.prelude !== undefined ? { prelude: this.opts.prelude } : {}),
      ...(set.script ? { script: set.script } : {}),
      signal: this.closing.signal,
      ...(this.opts.interruptEscalationMs ? { interruptEscalationMs: this.opts.interruptEscalationMs } : {}),
      ...(this.opts.shutdownGraceMs ? { shutdownGraceMs: this.opts.shutdownGraceMs } : {}),
    });
    if (this.disposed) {
      await kernel.shutdown();
      throw new ExecutorError('the executor was disposed while the kernel was starting');
    }
    set.add(language, kernel);
    return kernel;
  }

  /** Where the kernel's read() finds `artifact://` and `agent://` names. */
  private artifactEnv(): Record<string, string> {
    const folder = this.artifactDir; // (none: read() of such a name then says so)
    return folder ? { OMP_EVAL_ARTIFACTS: folder } : {};
  }

  /** The artifacts a sandboxed kernel may read: its executor's, no other's. */
  private visibleArtifacts(): string[] {
    const folder = this.artifactDir;
    return folder ? [folder] : [];
  }

  /** Interrupts every running cell of every session; runs that start later are not affected. */
  interruptAll(): void {
    const previous = this.sessionAbort;
    this.sessionAbort = new AbortController();
    previous.abort(new ExecutorError('interrupted'));
  }

  /**
   * Aborts everything running and shuts every kernel down. `why` (e.g. "omp-eval received
   * SIGTERM") is what the cells it stops say.
   */
  dispose(why = 'the executor was disposed'): Promise<void> {
    // A second caller (a signal handler while the notebook is closing) waits for the same end:
    // returning early would let it exit the process while a kernel is still being shut down.
    this.disposing ??= this.disposeOnce(why);
    return this.disposing;
  }

  private async disposeOnce(why: string): Promise<void> {
    this.disposed = true;
    this.opts.prestarted?.discard();
    this.sessionAbort.abort(new ExecutorClosedError(why));
    this.closing.abort();
    const sets = [...this.sets.values()];
    this.sets.clear();
    this.retained.clear();
    await Promise.all(sets.map((s) => s.shutdown()));
  }

  /** Live kernels, for diagnostics and tests. */
  get kernels(): KernelHandle[] {
    return [...this.sets.values()].flatMap((s) => s.all());
  }
}

/**
 * The interpreter part of a session key: the interpreter as found (a venv's `python` is a link to
 * its base interpreter, but runs with the venv's packages) and its real file.
 */
function interpreterKey(python: ResolvedPython | undefined): string {
  if (!python) return '(no python)';
  return `${python.executable}\0${python.binDir ?? ''}\0${realPath(python.executable)}`;
}

/** What a caller is told when its cell runs in a new kernel because the last one ended unasked. */
function replacedNotice(label: string, exit: KernelExit): string {
  const how =
    exit.reason === 'interrupt-timeout'
      ? 'was killed after it did not respond to an interrupt'
      : exit.reason === 'protocol-error'
        ? 'was stopped because its output could not be read'
        : exit.reason === 'shutdown'
          ? 'was shut down'
          : `had exited (${describeExit(exit)})`;
  return `The previous ${label} kernel ${how}; a new kernel was started and earlier state is gone.`;
}

/**
 * Interpreters discovery passed over although they exist (a `.venv` whose python hangs or fails):
 * the caller would expect its venv, and learns which Python runs instead, and why.
 */
function skippedNotice(python: ResolvedPython): string | undefined {
  const skipped = python.tried.filter((t) => t.reason !== 'does not exist');
  if (!skipped.length) return undefined;
  const list = skipped.map((t) => `${t.candidate}: ${t.reason}`).join('; ');
  return `Skipped ${list}. This kernel runs ${python.executable} (Python ${python.version.join('.')}).`;
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path; // keep the path as given
  }
}

export function createExecutor(opts: ExecutorOptions = {}): Executor {
  return new Executor(opts);
}

/** The artifacts scope of a working directory: `w-` and a hash of its path. */
function workspaceScope(cwd: string): string {
  return `w-${createHash('sha256').update(cwd).digest('hex').slice(0, 16)}`;
}
