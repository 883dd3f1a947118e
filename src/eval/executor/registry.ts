/**
 * The executor: runs cells for every front end (the notebook, `omp-eval run`, the eval tool).
 *
 * In `session` mode kernels are retained per session id + working directory + interpreter and
 * shared by every owner of that key; calls on one key queue. In `per-call` mode each run gets a
 * fresh kernel that is shut down afterwards.
 */
import { realpathSync, statSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import type { KernelHandle } from '../kernel/handle.js';
import { Kernel } from '../kernel/kernel.js';
import { PythonNotFoundError, type ResolvedPython, resolvePython } from '../kernel/python.js';
import { describeExit, type KernelLanguage as Language } from '../kernel/types.js';
import { type Logger, silentLogger } from '../logger.js';
import type { BridgeHandler } from '../protocol/index.js';
import { remoteKernelFactories } from '../remote/factory.js';
import { DEFAULT_SETTINGS, type Settings } from '../settings.js';
import { commandBridge } from './commandBridge.js';
import { KernelSet } from './kernelSet.js';
import type { CellRequest, CellResult } from './results.js';
import { Session, type SessionHost } from './session.js';
import { ExecutorError, type ExecutorOptions, type RunOptions, type SessionOptions } from './types.js';

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
  private readonly sets = new Map<string, KernelSet>();
  /** Sessions the executor itself owns for the eval tool, by key: they live until dispose(). */
  private readonly retained = new Map<string, Session>();
  private sessionAbort = new AbortController();
  private disposed = false;
  private readonly bridge: BridgeHandler;
  private readonly kernelFactories: ExecutorOptions['kernelFactories'];

  constructor(private readonly opts: ExecutorOptions = {}) {
    this.settings = { ...DEFAULT_SETTINGS, ...opts.settings };
    this.kernelFactories = opts.kernelFactories ?? remoteKernelFactories(this.settings, this.hostEnv);
    this.logger = opts.logger ?? silentLogger;
    const agent = this.settings['bridge.agentCommand'];
    const completion = this.settings['bridge.completionCommand'];
    this.bridge =
      opts.bridge ?? commandBridge({ ...(agent ? { agent } : {}), ...(completion ? { completion } : {}) });
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

  /** Resolves the interpreter for a working directory (the setting, else discovery). */
  resolvePython(cwd: string): Promise<ResolvedPython> {
    return resolvePython({ interpreter: this.settings['python.interpreter'], cwd, env: this.hostEnv });
  }

  /** Becomes an owner of the kernels for (id, cwd, interpreter). Release it when done. */
  async session(options: SessionOptions = {}): Promise<Session> {
    if (this.disposed) throw new ExecutorError('the executor has been disposed');
    const cwd = checkCwd(options.cwd ?? process.cwd());
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
    const mode = options.mode ?? this.settings['python.kernelMode'];
    const key =
      mode === 'per-call'
        ? `per-call\0${Math.random()}`
        : `${options.id ?? 'default'}\0${cwd}\0${realPath(python?.executable ?? '(no python)')}`;
    const retain = options.retain === true && mode === 'session';
    const kept = retain ? this.retained.get(key) : undefined;
    if (kept) return kept;
    let set = this.sets.get(key);
    if (!set) {
      set = new KernelSet(key, cwd, python, pythonError);
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
    const previous = set.get(language);
    if (previous && previous.state !== 'dead' && previous.state !== 'stopping') return previous;
    if (previous?.state === 'stopping') await previous.shutdown();
    if (previous?.exit?.reason === 'died') {
      notices.push(
        `The previous ${previous.label} kernel had exited (${describeExit(previous.exit)}); a new kernel was started and earlier state is gone.`,
      );
    }
    set.remove(language);
    const factory = this.kernelFactories?.[language];
    if (language === 'py' && !set.python && !factory) {
      throw new ExecutorError(
        `The Python backend is not available: ${set.pythonError?.message ?? 'no Python'}`,
      );
    }
    const kernel = await (factory ?? Kernel.start)({
      language,
      cwd: set.cwd,
      ...(language === 'py' && set.python ? { resolved: set.python } : {}),
      hostEnv: this.hostEnv,
      passEnv: this.settings['env.pass'],
      bridge: this.bridge,
      logger: this.logger,
      ...(this.opts.kernelEnv ? { env: this.opts.kernelEnv } : {}),
      ...(this.opts.prelude !== undefined ? { prelude: this.opts.prelude } : {}),
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

  /** Interrupts every running cell of every session; runs that start later are not affected. */
  interruptAll(): void {
    const previous = this.sessionAbort;
    this.sessionAbort = new AbortController();
    previous.abort(new ExecutorError('interrupted'));
  }

  /** Aborts everything running and shuts every kernel down. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.sessionAbort.abort(new ExecutorError('the executor was disposed'));
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
