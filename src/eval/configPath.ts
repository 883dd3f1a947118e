/** Where the config file is (a module of its own: the quickest start reads its identity). */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The config file: $OMP_EVAL_CONFIG, else $XDG_CONFIG_HOME/omp-eval/config.json, else ~/.config/…. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.OMP_EVAL_CONFIG) return env.OMP_EVAL_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'omp-eval', 'config.json');
}
