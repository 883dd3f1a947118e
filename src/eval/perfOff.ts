/**
 * `OMP_EVAL_PERF_OFF`: the speed tricks to turn off, a list of names (commas or spaces), e.g.
 * `OMP_EVAL_PERF_OFF=jit,memory`. Each trick costs code; this is how its gain is measured again
 * (docs/performance.md, "The tricks"), and how a trick suspected of a bug is ruled out. Off, a
 * trick changes nothing but speed: every name has a test that runs the off path.
 *
 * Read where the trick is (the engine's here, the notebook's through the engine's index, each
 * kernel's in its own process, which is given the variable whatever its filter: launch/env.ts,
 * launch/spawn.ts).
 */

/** The names, each one trick (docs/performance.md says where each lives and what it bought). */
export const PERF_SWITCHES = [
  /** the notebook: V8's inlining budget left at its default (tui/runtime/jit.ts) */
  'jit',
  /** the notebook: the young generation uncapped, no compaction when idle (tui/runtime/memory.ts) */
  'memory',
  /** the engine: control characters found by the regular expression alone (output/controlScan.ts) */
  'wasm-scan',
  /** `run`, `tool`, `mcp`: no kernel process spawned before the engine loads (launch/prestart.ts) */
  'prestart',
  /** `run`, `tool`: no process spawned from the last call's recipe, none stored (launch/recipe.ts) */
  'recipe',
  /** the Python kernel: no standard modules imported while it waits for its first request (runner.py) */
  'preimport',
  /** the interpreter probed on every call, as OMP_EVAL_NO_PROBE_CACHE=1 (launch/probeCache.ts) */
  'probe-cache',
  /**
   * the JavaScript kernel: its pump thread writes what is queued as soon as it wakes, without
   * waiting a few milliseconds for more to coalesce into one frame (js/pump.cjs). (The pump thread
   * itself has no switch: it is also what delivers a line printed before a long synchronous
   * computation, and what keeps a frame whole when SIGINT stops the cell.)
   */
  'pump-batch',
  /** `run`, `tool`: the CLI's ES-module chunks loaded, not its classic script with V8's code cache (launch/codeCache.ts) */
  'code-cache',
] as const;

export type PerfSwitch = (typeof PERF_SWITCHES)[number];

export const PERF_OFF_VAR = 'OMP_EVAL_PERF_OFF';

/** Whether `name` is turned off in `env`. */
export function perfOff(name: PerfSwitch, env: NodeJS.ProcessEnv = process.env): boolean {
  const list = env[PERF_OFF_VAR];
  return !!list && list.split(/[\s,]+/).includes(name);
}

/** The names of `env`'s list that name no switch: a typo turns nothing off, so the engine warns. */
export function unknownPerfSwitches(env: NodeJS.ProcessEnv = process.env): string[] {
  const known: readonly string[] = PERF_SWITCHES;
  return (env[PERF_OFF_VAR] ?? '').split(/[\s,]+/).filter((name) => name && !known.includes(name));
}

/** The warning for unknownPerfSwitches' names. */
export function unknownPerfSwitchWarning(names: string[]): string {
  return `${PERF_OFF_VAR} names no switch called ${names.join(', ')} (nothing is turned off by ${names.length > 1 ? 'them' : 'it'}); the switches are ${PERF_SWITCHES.join(', ')}`;
}
