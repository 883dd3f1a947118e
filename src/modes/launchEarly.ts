/**
 * The launcher's first act for `run` and `tool` (bin/omp-eval.js, through dist/cli/launch.js):
 * the Python kernel's process spawned from the previous call's recipe before the CLI's script is
 * read, checked and compiled (some 60-90 ms of the call), so that the interpreter starts meanwhile.
 * startEarly (early.ts) is handed the process and the key, and goes on as with its own spawn.
 */
import { recipeKey, spawnByRecipe, streamLogger } from '../eval/quickstart.js';
import { type EarlySpawn, guessPythonKernel, stopSpawned } from './early.js';

/** The recipe's process for `argv` (none when the call is not the last one), with its key. Never fails. */
export function spawnFirst(argv: readonly string[]): EarlySpawn | undefined {
  const guess = guessPythonKernel(argv);
  if (!guess) return undefined;
  try {
    const key = recipeKey(guess);
    return { key, spawned: spawnByRecipe(key, streamLogger(process.stderr)) };
  } catch {
    return undefined;
  }
}

/** Stops the process spawnFirst made when the CLI that would take it does not run. */
export function dropFirst(early: EarlySpawn | undefined): void {
  stopSpawned(early?.spawned);
}
