/**
 * Whether a face's kernels get the spec's environment filter. The filter keeps secrets from an
 * agent's code; a person at their own terminal expects their environment, as IPython and
 * jupyter console give it (a company's PIP_INDEX_URL, CUDA_VISIBLE_DEVICES, JAVA_HOME). So the
 * faces a person drives pass the whole environment, the faces an agent drives keep the filter,
 * and the `env.filter` setting (or `--env-filter on|off`) overrides both.
 */

/** Who drives a front end: the notebook, line mode and `run` a person; `tool` and `mcp` an agent. */
export type Face = 'notebook' | 'line' | 'run' | 'tool' | 'mcp' | 'notebook-mcp';

/**
 * The faces an agent drives. `notebook-mcp` is a notebook whose kernels an MCP client also runs
 * cells in: a front end that shares its kernels with an agent passes this face.
 */
const AGENT_FACES: ReadonlySet<Face> = new Set<Face>(['tool', 'mcp', 'notebook-mcp']);

export interface EnvFilterChoice {
  /** The filter applies. */
  on: boolean;
  /** Set by the setting or the flag, or the face's default. */
  source: 'setting' | 'default';
}

/** The filter for `face`: the `env.filter` setting when set, else on for agents' faces only. */
export function envFilterOf(settings: { 'env.filter'?: boolean }, face: Face): EnvFilterChoice {
  const set = settings['env.filter'];
  if (set !== undefined) return { on: set, source: 'setting' };
  return { on: AGENT_FACES.has(face), source: 'default' };
}

/** "filtered" or "whole", for the status line. */
export function envFilterLabel(on: boolean): string {
  return on ? 'env filtered' : 'env whole';
}

/** One line for `setup python --check`: what each kind of face gets, and why. */
export function describeEnvFilter(settings: { 'env.filter'?: boolean }): string {
  const set = settings['env.filter'];
  if (set !== undefined)
    return `${set ? 'filtered (the allowlist, no credentials)' : 'whole'} in every command (env.filter ${set ? 'on' : 'off'})`;
  return 'whole for the notebook, line mode and run; filtered (the allowlist, no credentials) for tool and mcp';
}
