/**
 * The engine's earliest entry, lighter still than start.ts: what `run` and `tool` call first, to
 * spawn their Python kernel's process from the previous call's recipe (launch/recipe.ts) before
 * anything else of omp-eval loads (src/modes/early.ts). The process is handed to prestartPython
 * (start.ts), which takes it only if it fits, and stores the recipe of what it spawns itself.
 */
import { type RecipeSpawn, readRecipe, recipeKey, spawnFromRecipe } from './launch/recipe.js';
import { perfOff } from './perfOff.js';

export type { RecipeSpawn };
export { recipeKey };

/** Spawns the process the recipe stored under `key` describes; undefined without one. Never fails. */
export function spawnByRecipe(key: string): RecipeSpawn | undefined {
  if (perfOff('recipe') || perfOff('prestart')) return undefined;
  const recipe = readRecipe(key);
  return recipe ? spawnFromRecipe(recipe) : undefined;
}
