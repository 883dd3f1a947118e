/**
 * Settings: defaults, then the config file, then flags (flags win). A bad value is an error that
 * names the setting and where it came from.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { clampTimeout, DEFAULT_TIMEOUT_S } from './executor/watchdog.js';
import { settingsProblems } from './schemas/index.js';

export type KernelMode = 'session' | 'per-call';

export interface Settings {
  'python.interpreter'?: string;
  'python.kernelMode': KernelMode;
  'eval.py': boolean;
  'eval.js': boolean;
  /** Default cell timeout in seconds. */
  'eval.timeout': number;
  /** Host variables passed to kernels although the environment filter would drop them. */
  'env.pass': string[];
  /** The command that runs agent() calls (JSON request on stdin, answer on stdout). */
  'bridge.agentCommand'?: string;
  /** The command that answers completion() calls. */
  'bridge.completionCommand'?: string;
  /** A Jupyter server whose kernels run the Python cells (--jupyter), its token, a kernelspec, a kernel to attach to. */
  'jupyter.url'?: string;
  'jupyter.token'?: string;
  'jupyter.kernelName'?: string;
  'jupyter.kernelId'?: string;
}

export const DEFAULT_SETTINGS: Settings = {
  'python.kernelMode': 'session',
  'eval.py': true,
  'eval.js': true,
  'eval.timeout': DEFAULT_TIMEOUT_S,
  'env.pass': [],
};

export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

/** The config file: $OMP_EVAL_CONFIG, else $XDG_CONFIG_HOME/omp-eval/config.json, else ~/.config/…. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.OMP_EVAL_CONFIG) return env.OMP_EVAL_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'omp-eval', 'config.json');
}

/** Normal boolean flag parsing: 1/true/yes/on and 0/false/no/off, any case; undefined if unset or empty. */
export function parseBooleanFlag(value: string | undefined, name: string): boolean | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new SettingsError(
    `${name} must be a boolean (1/0, true/false, yes/no, on/off), got ${JSON.stringify(value)}`,
  );
}

/** What each setting must be, for messages (the rules themselves are in schemas/schemas.json). */
const RULES: Record<keyof Settings, string> = {
  'python.interpreter': 'must be a path to a Python interpreter',
  'python.kernelMode': 'must be "session" or "per-call"',
  'eval.py': 'must be true or false (or 1/0, yes/no, on/off)',
  'eval.js': 'must be true or false (or 1/0, yes/no, on/off)',
  'eval.timeout': 'must be a number of seconds (1..3600)',
  'env.pass': 'must be a list of environment variable names',
  'bridge.agentCommand': 'must be a shell command',
  'bridge.completionCommand': 'must be a shell command',
  'jupyter.url': 'must be an http:// or https:// URL of a Jupyter server',
  'jupyter.token': 'must be a string',
  'jupyter.kernelName': 'must be the name of a kernelspec on the server',
  'jupyter.kernelId': 'must be the id of a kernel running on the server',
};

/** A value the schema accepted, in its settings type (strings of flags and env become values). */
function convert(key: keyof Settings, value: unknown): unknown {
  switch (key) {
    case 'eval.py':
    case 'eval.js':
      return typeof value === 'string' ? parseBooleanFlag(value, key) : value;
    case 'eval.timeout':
      return clampTimeout(Number(value));
    case 'env.pass':
      return typeof value === 'string' ? [value] : value;
    default:
      return value;
  }
}

/** Flattens `{python: {interpreter: x}}` and accepts `{"python.interpreter": x}` alike. */
function flatten(obj: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (value && typeof value === 'object' && !Array.isArray(value))
      Object.assign(out, flatten(value as Record<string, unknown>, name));
    else out[name] = value;
  }
  return out;
}

/** Validates a partial settings object from `source` (a file path or "flags"). */
export function validateSettings(raw: Record<string, unknown>, source: string): Partial<Settings> {
  const flat = Object.fromEntries(Object.entries(flatten(raw)).filter(([, v]) => v !== undefined));
  const [problem] = settingsProblems(flat);
  if (problem && !problem.known) {
    throw new SettingsError(
      `unknown setting "${problem.key}" in ${source}; known settings: ${Object.keys(RULES).join(', ')}`,
    );
  }
  if (problem) {
    const rule = RULES[problem.key as keyof Settings];
    throw new SettingsError(
      `setting "${problem.key}" in ${source} ${rule}, got ${JSON.stringify(flat[problem.key])}`,
    );
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(flat)) {
    const converted = convert(key as keyof Settings, value);
    if (converted !== undefined) out[key] = converted;
  }
  return out as Partial<Settings>;
}

/** Reads the config file; a missing file is no settings, an unreadable or invalid one is an error. */
export function readConfigFile(path: string): Partial<Settings> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new SettingsError(`cannot read the config file ${path}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new SettingsError(`the config file ${path} is not valid JSON: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new SettingsError(`the config file ${path} must hold a JSON object`);
  }
  return validateSettings(parsed as Record<string, unknown>, path);
}

export function loadSettings(flags: Partial<Settings> = {}, env: NodeJS.ProcessEnv = process.env): Settings {
  const file = readConfigFile(configPath(env));
  const fromFlags = validateSettings({ ...flags }, 'flags');
  const settings = { ...DEFAULT_SETTINGS, ...file, ...fromFlags };
  // Names to pass add up: the file's and the flags'.
  settings['env.pass'] = [...new Set([...(file['env.pass'] ?? []), ...(fromFlags['env.pass'] ?? [])])];
  checkJupyter(settings, fromFlags);
  return settings;
}

/** A kernel to start or attach to, and a token, mean something only with a Jupyter server. */
function checkJupyter(settings: Settings, flags: Partial<Settings>) {
  const FLAGS = {
    'jupyter.token': '--token',
    'jupyter.kernelName': '--kernel-name',
    'jupyter.kernelId': '--kernel-id',
  };
  const given = Object.entries(FLAGS).filter(([key]) => flags[key as keyof Settings] !== undefined);
  if (given.length && !settings['jupyter.url'])
    throw new SettingsError(
      `${given.map(([, flag]) => flag).join(' and ')} ${given.length > 1 ? 'need' : 'needs'} a Jupyter server: --jupyter URL`,
    );
  if (settings['jupyter.kernelName'] && settings['jupyter.kernelId'])
    throw new SettingsError(
      'give --kernel-name (a kernel to start) or --kernel-id (a kernel to attach to), not both',
    );
}

/** Which backends the eval tool exposes: the settings, each overridden by its own env flag. */
export function backendAvailability(settings: Settings, env: NodeJS.ProcessEnv = process.env) {
  return {
    py: parseBooleanFlag(env.PI_PY, 'PI_PY') ?? settings['eval.py'],
    js: parseBooleanFlag(env.PI_JS, 'PI_JS') ?? settings['eval.js'],
  };
}
