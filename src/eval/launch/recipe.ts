/**
 * The quickest start of a `run` or `tool` call's Python kernel: its process spawned from what the
 * previous call spawned (the recipe), before the settings are read and the engine loaded.
 *
 * prestart.ts spawns the kernel's process once the settings are read and the interpreter resolved:
 * some 40 ms into the call, which the interpreter's own start-up then follows. The recipe it
 * leaves (the interpreter, the runner's path, the working directory, the passed variables) lets
 * the next call spawn the same process within a few milliseconds of its start, when nothing the
 * settings or the interpreter could depend on has changed: the same command line, working
 * directory and environment, the same config file, the same omp-eval. That is a guess, checked
 * later: prestart.ts takes the process only when what it computes (settings read, interpreter
 * resolved, runner file checked) is what the process was spawned with, and stops it otherwise.
 * The process runs nothing of the kernel's package before the host checked it (runner.py waits
 * for its first request); runner.py itself is checked here against the one omp-eval ships.
 */
import type { ChildProcess } from 'node:child_process';
import { lstatSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type writeFileAtomic from 'write-file-atomic';
import { configPath } from '../configPath.js';
import { isPrivate, privateName } from '../output/privateDir.js';
import { BRIDGE_FD, KERNEL_STDIO, RUNNER_CACHE } from '../process/descriptors.js';
import { kernelEnv } from './env.js';
import type { ResolvedPython } from './python.js';
import { quickHash } from './quickHash.js';

/** What a kernel's process was spawned with (the kernel's descriptors are spawn.ts's). */
export interface Recipe {
  /** The call it fits (recipeKey). */
  key: string;
  python: ResolvedPython;
  /** runner.py in the runner cache. */
  runner: string;
  cwd: string;
  passEnv: string[];
  /** The spec's environment filter, or the whole environment (false). */
  envFilter: boolean;
}

/** A process spawned from a recipe, for prestart.ts to take or stop. */
export interface RecipeSpawn {
  child: ChildProcess;
  recipe: Recipe;
  /** Its environment (the kernel's, and the bridge's descriptor). */
  env: Record<string, string>;
  /**
   * runner.py's path when the process was let go (the blank line runner.py waits for: it loads its
   * package now) after the checks pythonKernel (spawn.ts) makes first: quickstart.ts, release.
   */
  released?: string;
}

/** A config file larger than this is known by its identity, not read (it is a few lines). */
const CONFIG_READ_MAX = 1n << 20n;

const RUNNER_SOURCE = fileURLToPath(new URL('../../py/runner.py', import.meta.url));
/** The omp-eval a recipe was written by (another version's runner is elsewhere in the cache). */
const INSTALL = fileURLToPath(new URL('.', import.meta.url));
/** The recipe's file: in the runner cache's well-known directory (no fallback: then no recipe). */
export function recipeFile(base = tmpdir()): string {
  return join(base, privateName(RUNNER_CACHE), 'recipe.json');
}

/**
 * The call's key: everything the kernel's settings and interpreter are read from that is cheap to
 * see at once (the guessed flags, the working directory, the whole environment, the config file's
 * content, this omp-eval). A hash: the environment's values are never written anywhere. Not
 * node:crypto's (quickHash.ts): the key is computed before the kernel's process is spawned, and
 * a collision only spawns a process that prestart.ts then finds unfit and stops.
 */
export function recipeKey(guess: unknown, env: NodeJS.ProcessEnv = process.env): string {
  const configFile = configPath(env);
  // Its content (a link's target edited, or a file rewritten within the same second, is seen),
  // read only from a plain file of a config file's size: a FIFO or a device would block or never
  // end (the settings then say what is wrong with it; no recipe was stored for it).
  let config: string | null = null;
  try {
    const st = statSync(configFile, { bigint: true });
    config =
      st.isFile() && st.size <= CONFIG_READ_MAX
        ? readFileSync(configFile, 'latin1')
        : `${st.mode}:${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}`;
  } catch {
    // no config file
  }
  const vars = Object.keys(env)
    .filter((name) => name !== '_') // (the shell's last command: `time omp-eval …` is the same call)
    .sort()
    .map((name) => [name, env[name]]);
  return quickHash(JSON.stringify({ guess, cwd: process.cwd(), vars, configFile, config, install: INSTALL }));
}

/** The recipe stored for `key`, if it is safe to use (ours, private, its runner.py intact). */
export function readRecipe(key: string, file = recipeFile()): Recipe | undefined {
  if (!isPrivate(dirname(file), 'dir') || !isPrivate(file, 'file')) return undefined;
  let recipe: Recipe;
  try {
    recipe = JSON.parse(readFileSync(file, 'utf8')) as Recipe;
  } catch {
    return undefined;
  }
  if (
    recipe?.key !== key ||
    typeof recipe.runner !== 'string' ||
    typeof recipe.cwd !== 'string' ||
    typeof recipe.python?.executable !== 'string' ||
    !Array.isArray(recipe.python.version) ||
    !Array.isArray(recipe.passEnv) ||
    typeof recipe.envFilter !== 'boolean'
  )
    return undefined;
  // runner.py runs at once (the package only after the host's check): it must be the one shipped.
  const cache = dirname(file);
  if (dirname(dirname(recipe.runner)) !== cache || !isPrivate(dirname(recipe.runner), 'dir'))
    return undefined;
  try {
    if (!isPrivate(recipe.runner, 'file') || !readFileSync(recipe.runner).equals(readFileSync(RUNNER_SOURCE)))
      return undefined;
  } catch {
    return undefined;
  }
  return recipe;
}

/** Spawns the process `recipe` describes, as spawn.ts spawns a kernel's; undefined when that fails. */
export function spawnFromRecipe(recipe: Recipe): RecipeSpawn | undefined {
  const env = {
    ...kernelEnv(process.env, recipe.python, { pass: recipe.passEnv, filter: recipe.envFilter }),
    OMP_BRIDGE_FD: String(BRIDGE_FD),
  };
  try {
    // (node:child_process loaded here: dist/cli/launch.js, which every command loads, holds this
    // module, and `--version` or the notebook need no process this early)
    const { spawn } = require('node:child_process') as typeof import('node:child_process');
    const child = spawn(recipe.python.executable, ['-u', recipe.runner], {
      cwd: recipe.cwd,
      env,
      detached: true,
      stdio: [...KERNEL_STDIO],
      windowsHide: true,
    });
    child.on('error', () => {}); // (prestart.ts stops it, or the kernel that takes it hears)
    if (child.pid === undefined) return undefined;
    return { child, recipe, env };
  } catch {
    return undefined;
  }
}

/** Removes the recipe (a call whose kernel is sandboxed or limited: none may start unwrapped). */
export function forgetRecipe(file = recipeFile()): void {
  try {
    if (isPrivate(dirname(file), 'dir') && lstatSync(file)) rmSync(file, { force: true });
  } catch {
    // none there
  }
}

const require = createRequire(import.meta.url);

/** Stores `recipe` for the next call (unless it is stored already). Never fails. */
export function storeRecipe(recipe: Recipe, file = recipeFile()): void {
  try {
    if (!isPrivate(dirname(file), 'dir')) return;
    const text = JSON.stringify(recipe);
    try {
      if (isPrivate(file, 'file') && readFileSync(file, 'utf8') === text) return;
    } catch {
      // not there yet
    }
    // (write-file-atomic would write through a link to its target: anything but a file goes first)
    try {
      if (!lstatSync(file).isFile()) rmSync(file, { force: true });
    } catch {
      // nothing there
    }
    const atomic = require('write-file-atomic') as typeof writeFileAtomic;
    atomic.sync(file, text, { mode: 0o600 });
  } catch {
    // the next call starts as this one did
  }
}
