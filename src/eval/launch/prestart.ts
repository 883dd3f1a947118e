/**
 * A Python kernel's process started before the engine is loaded. `omp-eval run` and `tool` pay
 * the interpreter's own start-up (60-80 ms of `site`) on every call; spawned first, it overlaps
 * the loading of the rest of the engine. The process waits for its first request before it reads
 * its package (runner.py), so it is the same process a kernel start would have spawned: the
 * executor takes it for its first Python kernel when the working directory, the interpreter and
 * the passed variables are the ones it was spawned with, and stops it otherwise.
 */
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Logger } from '../logger.js';
import { perfOff } from '../perfOff.js';
import { signalGroup } from '../process/processGroup.js';
import { memoryLimitOf, type SandboxSettings, sandboxOf } from '../sandbox/settings.js';
import type { Settings } from '../settings.js';
import { kernelEnv } from './env.js';
import { type ResolvedPython, resolvePython } from './python.js';
import { forgetRecipe, type RecipeSpawn, storeRecipe } from './recipe.js';
import { ensureRunnerFile } from './runnerFile.js';
import { BRIDGE_FD, type KernelProcess, pythonKernel, spawnKernel, withChannels } from './spawn.js';

export interface PrestartedKernel {
  /**
   * The process, for the first Python kernel, of `cwd` (a real path), `python`, and the kernel
   * environment of `hostEnv` with `passEnv` and the filter or not (`envFilter`): given when it
   * was spawned for exactly these, else stopped.
   */
  take(
    cwd: string,
    python: ResolvedPython,
    hostEnv: NodeJS.ProcessEnv,
    passEnv: readonly string[],
    envFilter?: boolean,
  ): Promise<KernelProcess> | undefined;
  /** Stops the process unless a kernel took it. */
  discard(): void;
  /** The process's pid (undefined if it could not be spawned). */
  readonly pid: Promise<number | undefined>;
}

const sameInterpreter = (a: ResolvedPython, b: ResolvedPython) =>
  a.executable === b.executable &&
  (a.binDir ?? '') === (b.binDir ?? '') &&
  a.version.join('.') === b.version.join('.');

function sameEnv(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

/**
 * Spawns the Python kernel's process that a local, unsandboxed executor with `settings` would
 * spawn first in `cwd`; undefined when it would spawn none or when anything fails (the executor
 * then starts its kernel as usual, and reports what failed).
 */
export async function prestartPython(
  settings: Settings,
  opts: {
    cwd: string;
    hostEnv: NodeJS.ProcessEnv;
    logger: Logger;
    /** The process spawned from the previous call's recipe (recipe.ts): taken if it fits, else stopped. */
    fromRecipe?: RecipeSpawn;
    /** This call's recipe key: the recipe of what is spawned here is stored under it. */
    recipeKey?: string;
  },
): Promise<PrestartedKernel | undefined> {
  const sandbox = sandboxOf(settings);
  let cwd: string;
  let python: ResolvedPython;
  try {
    // (OMP_EVAL_PERF_OFF=prestart: the executor spawns its first kernel itself, as a sandbox's)
    if (perfOff('prestart')) throw new Error('turned off');
    if (settings['jupyter.url'] || sandbox.mode !== 'off') throw new Error('not a local kernel');
    cwd = realpathSync(resolve(opts.cwd));
    if (!statSync(cwd).isDirectory()) throw new Error('not a directory');
    python = await resolvePython({ interpreter: settings['python.interpreter'], cwd, env: opts.hostEnv });
  } catch {
    if (opts.fromRecipe)
      stopUnused(withChannels(opts.fromRecipe.child, opts.fromRecipe.recipe.python.executable));
    if (opts.recipeKey && sandbox.mode !== 'off') forgetRecipe();
    return undefined;
  }
  const passEnv = settings['env.pass'];
  const envFilter = settings['env.filter'] ?? true;
  // (unsandboxed: a sandbox starts nothing early)
  const env = kernelEnv(opts.hostEnv, python, { pass: passEnv, filter: envFilter });
  const spawned = spawnPython(cwd, python, { passEnv, envFilter }, env, { ...opts, sandbox });
  spawned.catch(() => {}); // (the kernel that takes it hears the failure; unused, it is moot)
  let state: 'waiting' | 'taken' | 'discarded' = 'waiting';
  const discard = () => {
    if (state !== 'waiting') return;
    state = 'discarded';
    void spawned.then(stopUnused, () => {});
  };
  return {
    take(kernelCwd, kernelPython, hostEnv, kernelPassEnv, kernelEnvFilter = true) {
      if (state !== 'waiting') return undefined;
      const same =
        kernelCwd === cwd &&
        sameInterpreter(kernelPython, python) &&
        sameEnv(kernelEnv(hostEnv, kernelPython, { pass: kernelPassEnv, filter: kernelEnvFilter }), env);
      if (!same) {
        discard();
        return undefined;
      }
      state = 'taken';
      return spawned;
    },
    discard,
    pid: spawned.then(
      (proc) => proc.child.pid,
      () => undefined,
    ),
  };
}

/**
 * The kernel's process for `cwd`, `python`, `passEnv` and `envFilter` (whose kernel environment is `env`): the one
 * spawned from the recipe when it was spawned for exactly these (and the runner file checked now
 * is the one it runs), else a new one, whose recipe is then stored for the next call.
 */
async function spawnPython(
  cwd: string,
  python: ResolvedPython,
  { passEnv, envFilter }: { passEnv: string[]; envFilter: boolean },
  env: Record<string, string>,
  opts: {
    hostEnv: NodeJS.ProcessEnv;
    logger: Logger;
    sandbox: SandboxSettings;
    fromRecipe?: RecipeSpawn;
    recipeKey?: string;
  },
): Promise<KernelProcess> {
  // (a recipe spawns the interpreter itself: no sandbox, no memory limit around it)
  const plain = opts.sandbox.mode === 'off' && !memoryLimitOf(opts.sandbox);
  const early = opts.fromRecipe;
  if (early) {
    // (checked already, in this call, when the process was let go: quickstart.ts)
    let runner = early.released;
    try {
      runner ??= ensureRunnerFile({ logger: opts.logger });
    } catch {
      // (the spawn below reports it)
    }
    const { recipe } = early;
    const fits =
      plain &&
      runner === recipe.runner &&
      cwd === recipe.cwd &&
      sameInterpreter(python, recipe.python) &&
      sameEnv({ ...env, OMP_BRIDGE_FD: String(BRIDGE_FD) }, early.env);
    const proc = withChannels(early.child, python.executable);
    if (fits && runner)
      return pythonKernel(proc, python, runner, opts.hostEnv, opts.logger, early.released !== undefined);
    stopUnused(proc);
  }
  // (the sandbox said explicitly: without it, the spawn would follow $OMP_EVAL_SANDBOX)
  const proc = await spawnKernel(
    'py',
    cwd,
    { resolved: python, hostEnv: opts.hostEnv, passEnv, envFilter, sandbox: opts.sandbox },
    opts.logger,
  );
  const runner = proc.child.spawnargs.at(-1); // (python -u runner.py)
  // (OMP_EVAL_PERF_OFF=recipe: none stored, none used: quickstart.ts)
  if (opts.recipeKey && plain && runner && !perfOff('recipe'))
    storeRecipe({ key: opts.recipeKey, python, runner, cwd, passEnv: [...passEnv], envFilter });
  else if (opts.recipeKey && !plain) forgetRecipe();
  return proc;
}

/** Stops a process no kernel took: it is still waiting for its first request. */
function stopUnused(proc: KernelProcess): void {
  proc.requestsReady?.catch(() => {});
  if (proc.child.pid !== undefined) signalGroup(proc.child.pid, 'SIGKILL');
  for (const stream of [proc.requests, proc.frames, proc.rawStdout, proc.stderr, proc.bridge])
    stream?.destroy();
}
