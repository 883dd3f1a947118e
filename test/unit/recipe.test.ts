/**
 * Issue 13 (commands that start fast): the recipe a `run` or `tool` call leaves for the next
 * identical call (src/eval/launch/recipe.ts). Its key changes with whatever the settings or the
 * interpreter could be read from; it is used only when it, its directory and the runner.py it
 * names are private files of ours and that runner.py is the one omp-eval ships; it is never
 * written through a link.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Recipe, readRecipe, recipeKey, storeRecipe } from '../../src/eval/launch/recipe.js';

const RUNNER = fileURLToPath(new URL('../../src/py/runner.py', import.meta.url));
const python: Recipe['python'] = {
  source: 'test',
  path: '/usr/bin/python3',
  executable: '/usr/bin/python3',
  version: [3, 11, 2],
  tried: [],
};

/** A private cache directory with a copy of the shipped runner.py in an entry, and its recipe. */
function cache(key = 'k') {
  const dir = mkdtempSync(join(tmpdir(), 'omp-recipe-'));
  mkdirSync(join(dir, '0123456789abcdef'), { mode: 0o700 });
  const runner = join(dir, '0123456789abcdef', 'runner.py');
  copyFileSync(RUNNER, runner);
  chmodSync(runner, 0o600);
  const recipe: Recipe = { key, python, runner, cwd: '/work', passEnv: ['A'], envFilter: true };
  const file = join(dir, 'recipe.json');
  storeRecipe(recipe, file);
  return { dir, file, runner, recipe };
}

describe('the recipe of a kernel process', () => {
  it('is stored privately and read back for its key only', () => {
    const { file, recipe } = cache('key-1');
    expect(lstatSync(file).mode & 0o777).toBe(0o600);
    expect(readRecipe('key-1', file)).toEqual(recipe);
    expect(readRecipe('key-2', file)).toBeUndefined();
  });

  it('is not used when its runner.py is not the one shipped, or not a private file of ours', () => {
    const altered = cache();
    writeFileSync(altered.runner, `${readFileSync(RUNNER, 'utf8')}\nprint("planted")\n`);
    expect(readRecipe('k', altered.file)).toBeUndefined();

    const open = cache();
    chmodSync(open.runner, 0o666);
    expect(readRecipe('k', open.file)).toBeUndefined();

    const openRecipe = cache();
    chmodSync(openRecipe.file, 0o666);
    expect(readRecipe('k', openRecipe.file)).toBeUndefined();
  });

  it('is not used when the runner it names is outside its cache', () => {
    const elsewhere = cache();
    const other = cache();
    writeFileSync(elsewhere.file, JSON.stringify({ ...elsewhere.recipe, runner: other.runner }), {
      mode: 0o600,
    });
    expect(readRecipe('k', elsewhere.file)).toBeUndefined();
  });

  it('is not read from, or written through, a link', () => {
    const { dir, file, recipe } = cache();
    const target = join(dir, 'elsewhere.json');
    writeFileSync(target, 'untouched', { mode: 0o600 });
    const link = join(dir, 'linked.json');
    symlinkSync(target, link);
    expect(readRecipe('k', link)).toBeUndefined();
    storeRecipe(recipe, link);
    expect(readFileSync(target, 'utf8')).toBe('untouched');
    expect(lstatSync(link).isFile()).toBe(true);
    expect(readRecipe('k', link)).toEqual(readRecipe('k', file));
  });

  it('has a key that changes with the guess, the environment and the config file, not with $_', () => {
    // (the config file a link, as dotfiles often are: its target's content counts)
    const dir = mkdtempSync(join(tmpdir(), 'omp-recipe-config-'));
    const config = join(dir, 'config.json');
    symlinkSync(join(dir, 'target.json'), config);
    const env = { HOME: '/h', PATH: '/bin', OMP_EVAL_CONFIG: config, _: '/usr/bin/node' };
    const guess = { cwd: '/work', passEnv: [] };
    const key = recipeKey(guess, env);
    expect(recipeKey(guess, { ...env })).toBe(key);
    expect(recipeKey(guess, { ...env, _: '/usr/bin/time' })).toBe(key);
    expect(recipeKey({ ...guess, python: '/opt/py' }, env)).not.toBe(key);
    expect(recipeKey(guess, { ...env, VIRTUAL_ENV: '/v' })).not.toBe(key);
    writeFileSync(config, '{}');
    const withConfig = recipeKey(guess, env);
    expect(withConfig).not.toBe(key);
    writeFileSync(config, '{"sandbox.mode": "read-only"}');
    expect(recipeKey(guess, env)).not.toBe(withConfig);
    // (the same size, written again at once: the same mtime, maybe)
    writeFileSync(config, '{"a": 1}');
    const before = recipeKey(guess, env);
    writeFileSync(join(dir, 'target.json'), '{"a": 2}');
    expect(recipeKey(guess, env)).not.toBe(before);
    // A FIFO is not read (it would block until something writes to it).
    const fifo = join(dir, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    expect(recipeKey(guess, { ...env, OMP_EVAL_CONFIG: fifo })).toMatch(/^[0-9a-f]{32}$/);
  });
});
