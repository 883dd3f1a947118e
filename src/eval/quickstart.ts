/**
 * The engine's earliest entry, lighter still than start.ts: what `run` and `tool` call first, to
 * spawn their Python kernel's process from the previous call's recipe (launch/recipe.ts) before
 * anything else of omp-eval loads (src/modes/early.ts). The process is handed to prestartPython
 * (start.ts), which takes it only if it fits, and stores the recipe of what it spawns itself.
 */
import type { Writable } from 'node:stream';
import { type RecipeSpawn, readRecipe, recipeKey, spawnFromRecipe } from './launch/recipe.js';
import { bytecodeChecked, ensureRunnerFile } from './launch/runnerFile.js';
import { type Logger, silentLogger, streamLogger } from './logger.js';
import { perfOff } from './perfOff.js';

export type { RecipeSpawn };
export { recipeKey, streamLogger };

/**
 * Spawns the process the recipe stored under `key` describes, and lets it load its package once
 * the checks are made (release); undefined without a recipe. Never fails.
 */
export function spawnByRecipe(key: string, logger: Logger = silentLogger): RecipeSpawn | undefined {
  if (perfOff('recipe') || perfOff('prestart')) return undefined;
  const recipe = readRecipe(key);
  const spawned = recipe ? spawnFromRecipe(recipe) : undefined;
  if (spawned) release(spawned, logger);
  return spawned;
}

/**
 * Lets the process load its package now, while the host loads the rest (compiles the CLI), when
 * the checks pythonKernel (launch/spawn.ts) makes before it pass at once: the kernel's files are
 * today's (ensureRunnerFile writes or checks them; the recipe's runner must be in that entry) and
 * the bytecode beside them is checked and complete (nothing to compile). Otherwise nothing is sent,
 * and pythonKernel checks (and compiles) as for any process.
 */
function release(spawned: RecipeSpawn, logger: Logger): void {
  try {
    const runner = ensureRunnerFile({ logger });
    const { executable, version } = spawned.recipe.python;
    if (
      runner !== spawned.recipe.runner ||
      !bytecodeChecked(runner, { executable, version: version.join('.') }, logger)
    )
      return;
    // (the kernel's requests: spawn.ts's withChannels, fd 4)
    (spawned.child.stdio[4] as Writable).write('\n', () => {});
    spawned.released = runner;
  } catch {
    // (pythonKernel checks, and says what is wrong)
  }
}
