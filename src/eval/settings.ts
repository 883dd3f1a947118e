/**
 * Settings: defaults, then the config file, then flags (flags win). A bad value is an error that
 * names the setting and where it came from.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { clampTimeout, DEFAULT_TIMEOUT_S } from './watchdog.js';

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

type Validator = (value: unknown, where: string) => unknown;

const expectBoolean: Validator = (value, where) => {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return parseBooleanFlag(value, where);
  throw new SettingsError(`${where} must be true or false, got ${JSON.stringify(value)}`);
};

const VALIDATORS: Record<keyof Settings, Validator> = {
  'python.interpreter': (value, where) => {
    if (typeof value === 'string' && value.trim()) return value;
    throw new SettingsError(`${where} must be a path to a Python interpreter, got ${JSON.stringify(value)}`);
  },
  'python.kernelMode': (value, where) => {
    if (value === 'session' || value === 'per-call') return value;
    throw new SettingsError(`${where} must be "session" or "per-call", got ${JSON.stringify(value)}`);
  },
  'eval.py': expectBoolean,
  'eval.js': expectBoolean,
  'bridge.agentCommand': (value, where) => {
    if (typeof value === 'string' && value.trim()) return value;
    throw new SettingsError(`${where} must be a shell command, got ${JSON.stringify(value)}`);
  },
  'bridge.completionCommand': (value, where) => {
    if (typeof value === 'string' && value.trim()) return value;
    throw new SettingsError(`${where} must be a shell command, got ${JSON.stringify(value)}`);
  },
  'env.pass': (value, where) => {
    const names = typeof value === 'string' ? [value] : value;
    if (
      Array.isArray(names) &&
      names.every((n) => typeof n === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(n))
    ) {
      return names;
    }
    throw new SettingsError(
      `${where} must be a list of environment variable names, got ${JSON.stringify(value)}`,
    );
  },
  'eval.timeout': (value, where) => {
    const n = typeof value === 'string' && value.trim() ? Number(value) : value;
    if (typeof n === 'number' && Number.isFinite(n) && n > 0) return clampTimeout(n);
    throw new SettingsError(`${where} must be a number of seconds (1..3600), got ${String(value)}`);
  },
};

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
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(flatten(raw))) {
    if (value === undefined) continue;
    const validate = VALIDATORS[key as keyof Settings];
    if (!validate) {
      throw new SettingsError(
        `unknown setting "${key}" in ${source}; known settings: ${Object.keys(VALIDATORS).join(', ')}`,
      );
    }
    out[key] = validate(value, `setting "${key}" in ${source}`);
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
  return settings;
}

/** Which backends the eval tool exposes: the settings, each overridden by its own env flag. */
export function backendAvailability(settings: Settings, env: NodeJS.ProcessEnv = process.env) {
  return {
    py: parseBooleanFlag(env.PI_PY, 'PI_PY') ?? settings['eval.py'],
    js: parseBooleanFlag(env.PI_JS, 'PI_JS') ?? settings['eval.js'],
  };
}
