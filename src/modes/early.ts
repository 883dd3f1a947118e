/**
 * What `omp-eval run` and `omp-eval tool` do first, before the command line is parsed and the
 * engine loaded: spawn their Python kernel's process (`prestartPython`), so that the interpreter
 * starts (60-80 ms of its own) while the rest of omp-eval loads. The reading of the arguments here
 * is a quick guess, not the parser's: the executor takes the process only when it was spawned for
 * the kernel it needs (working directory, interpreter, environment) and stops it otherwise, and
 * whatever is unusual (a sandbox, a Jupyter server, a flag not known here) starts nothing early.
 */
import type { RecipeSpawn } from '../eval/quickstart.js';
import type { PrestartedKernel } from '../eval/start.js';

/** The flags that take a value, and how they bear on the kernel (undefined: not at all). */
const VALUE_FLAGS: Record<string, 'python' | 'cwd' | 'passEnv' | 'envFilter' | 'lang' | undefined> = {
  '--python': 'python',
  '--cwd': 'cwd',
  '--pass-env': 'passEnv',
  '--env-filter': 'envFilter',
  '--lang': 'lang',
  '--kernel-mode': undefined,
  '--timeout': undefined,
  '--agent-command': undefined,
  '--completion-command': undefined,
  '--images': undefined,
};
// (Not here, so that nothing starts early with them: --memory-limit and the sandbox flags change
// how the kernel is spawned, which the early start does not read from the command line.)

export interface KernelGuess {
  python?: string;
  cwd: string;
  passEnv: string[];
  /** --env-filter, when given (else the command's default: on for tool, off for run). */
  envFilter?: boolean;
  /** The command: its face decides the environment filter's default. */
  face: 'run' | 'tool';
}

interface ScannedArgs {
  /** The words that are no flag or flag value: the command, then its arguments. */
  words: string[];
  /** The value flags' values in order, by the field they bear on. */
  values: [field: NonNullable<(typeof VALUE_FLAGS)[string]>, value: string][];
}

/** The command line's words and the flags' values; undefined at a flag not known here. */
function scanArgs(argv: readonly string[]): ScannedArgs | undefined {
  const scanned: ScannedArgs = { words: [], values: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') break;
    if (!arg.startsWith('-') || arg === '-') {
      scanned.words.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (!(name in VALUE_FLAGS)) return undefined;
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) return undefined;
    const field = VALUE_FLAGS[name];
    if (field) scanned.values.push([field, value]);
  }
  return scanned;
}

/**
 * `run` or `tool` when `argv` surely runs that command (every flag before it known here, so that
 * the parser finds the same command), else undefined. bin/omp-eval.js loads these two from their
 * classic script with V8's code cache (src/eval/launch/codeCache.ts), anything else as before.
 */
export function guessFace(argv: readonly string[]): 'run' | 'tool' | undefined {
  const command = scanArgs(argv)?.words[0];
  return command === 'run' || command === 'tool' ? command : undefined;
}

/** The local Python kernel that `argv` (without node and the script) will probably start first. */
export function guessPythonKernel(argv: readonly string[], cwd = process.cwd()): KernelGuess | undefined {
  const scanned = scanArgs(argv);
  if (!scanned) return undefined;
  const guess: Omit<KernelGuess, 'face'> = { cwd, passEnv: [] };
  for (const [field, value] of scanned.values) {
    if (field === 'python') guess.python = value;
    else if (field === 'cwd') guess.cwd = value;
    else if (field === 'passEnv') guess.passEnv.push(value);
    else if (field === 'envFilter') {
      if (value !== 'on' && value !== 'off') return undefined; // (the parser says what is wrong)
      guess.envFilter = value === 'on';
    } else if (field === 'lang' && value !== 'py') return undefined;
  }
  const [command, file] = scanned.words;
  if (command === 'tool') return { ...guess, face: 'tool' };
  if (command === 'run' && file !== undefined && !/\.[cm]?js$/i.test(file)) return { ...guess, face: 'run' };
  return undefined;
}

/** What the launcher spawned first (launchEarly.ts), for startEarly: the recipe's key and process. */
export interface EarlySpawn {
  key: string;
  spawned: RecipeSpawn | undefined;
}

let early: PrestartedKernel | undefined;

/**
 * Spawns the kernel's process `argv` will probably need, if it needs one: at once from the
 * previous call's recipe when this call is the same (eval/quickstart.ts), then checked against
 * the settings. `handed`: what the launcher spawned from the recipe already (launchEarly.ts), for
 * the same `argv`. Never fails.
 */
export async function startEarly(argv: readonly string[], handed?: EarlySpawn): Promise<void> {
  let fromRecipe: RecipeSpawn | undefined = handed?.spawned;
  const guess = guessPythonKernel(argv);
  if (!guess) {
    stopSpawned(fromRecipe);
    return;
  }
  try {
    const quick = await import('../eval/quickstart.js');
    const recipeKey = handed ? handed.key : quick.recipeKey(guess);
    if (!handed) fromRecipe = quick.spawnByRecipe(recipeKey);
    const { envFilterOf, loadSettings, prestartPython, streamLogger } = await import('../eval/start.js');
    const settings = loadSettings({
      ...(guess.python ? { 'python.interpreter': guess.python } : {}),
      ...(guess.passEnv.length ? { 'env.pass': guess.passEnv } : {}),
      ...(guess.envFilter !== undefined ? { 'env.filter': guess.envFilter } : {}),
    });
    settings['env.filter'] = envFilterOf(settings, guess.face).on;
    early = await prestartPython(settings, {
      cwd: guess.cwd,
      hostEnv: { ...process.env },
      logger: streamLogger(process.stderr),
      recipeKey,
      ...(fromRecipe ? { fromRecipe } : {}),
    });
    fromRecipe = undefined; // (prestartPython took it, or stopped it)
  } catch {
    // (bad settings, say: the command reports them)
  } finally {
    stopSpawned(fromRecipe);
  }
}

/** Stops a process spawned from the recipe that nothing took, and closes its pipes (no error then). */
export function stopSpawned(spawned: RecipeSpawn | undefined): void {
  if (!spawned) return;
  spawned.child.kill('SIGKILL');
  for (const stream of spawned.child.stdio) stream?.destroy();
}

/** The process startEarly spawned, for the executor (once). */
export function takeEarly(): PrestartedKernel | undefined {
  const kernel = early;
  early = undefined;
  return kernel;
}

/** Stops the process startEarly spawned if nothing took it (the command failed before). */
export function discardEarly(): void {
  takeEarly()?.discard();
}
