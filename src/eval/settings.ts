/**
 * Settings: defaults, then the config file, then flags (flags win). A bad value is an error that
 * names the setting and where it came from.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { clampTimeout, DEFAULT_TIMEOUT_S } from './cellTimeout.js';
import { configPath } from './configPath.js';
import { redactUrl } from './remote/redact.js';
import type { SandboxMode } from './sandbox/settings.js';
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
  /**
   * The spec's environment filter for kernels: on (agents' faces' default), off (the whole
   * environment: a person's faces' default). Unset: the face's default (envFilter.ts).
   */
  'env.filter'?: boolean;
  /** The command that runs agent() calls (JSON request on stdin, answer on stdout). */
  'bridge.agentCommand'?: string;
  /** The command that answers completion() calls. */
  'bridge.completionCommand'?: string;
  /** Megabytes one artifact file may hold (the full output of a cell). */
  'artifacts.maxFileMB': number;
  /** Megabytes the artifacts folder may hold; the oldest files are removed first. */
  'artifacts.maxTotalMB': number;
  /** How many agent()/completion() calls run at once (over all kernels); the rest wait. */
  'bridge.maxConcurrent': number;
  /** `omp-eval mcp`: the sessions (every client's) and the kernels one server holds at once. */
  'mcp.maxSessions': number;
  'mcp.maxKernels': number;
  /** The kernels' sandbox; unset: $OMP_EVAL_SANDBOX, else the front end's default. */
  'sandbox.mode'?: SandboxMode;
  'sandbox.allowNetwork': boolean;
  /** Directories sandboxed kernels may write to besides the cwd and their temp dir. */
  'sandbox.writableRoots': string[];
  /** Paths the sandbox hides by default (credentials) that sandboxed kernels may read. */
  'sandbox.allowRead'?: string[];
  /** Memory of a kernel and its processes in MB (0: none; sandboxed kernels default to 2048). */
  'sandbox.memoryLimitMb'?: number;
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
  'artifacts.maxFileMB': 100,
  'artifacts.maxTotalMB': 500,
  'bridge.maxConcurrent': 4,
  'mcp.maxSessions': 16,
  'mcp.maxKernels': 32,
  'sandbox.allowNetwork': false,
  'sandbox.writableRoots': [],
};

export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

export { configPath };

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
  'env.filter': 'must be on or off (or true/false, 1/0, yes/no)',
  'bridge.agentCommand': 'must be a shell command',
  'bridge.completionCommand': 'must be a shell command',
  'artifacts.maxFileMB': 'must be a positive number of megabytes',
  'artifacts.maxTotalMB': 'must be a positive number of megabytes',
  'bridge.maxConcurrent': 'must be a whole number of calls (1..256)',
  'mcp.maxSessions': 'must be a whole number of sessions (1..10000)',
  'mcp.maxKernels': 'must be a whole number of kernels (1..10000)',
  'sandbox.mode': 'must be "off", "read-only" or "workspace-write"',
  'sandbox.allowNetwork': 'must be true or false (or 1/0, yes/no, on/off)',
  'sandbox.writableRoots': 'must be a list of directories',
  'sandbox.allowRead': 'must be a list of paths',
  'sandbox.memoryLimitMb': 'must be a whole number of MB (0 for no limit)',
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
    case 'sandbox.allowNetwork':
    case 'env.filter':
      return typeof value === 'string' ? parseBooleanFlag(value, key) : value;
    case 'sandbox.memoryLimitMb':
      return Number(value);
    case 'sandbox.writableRoots':
    case 'sandbox.allowRead':
      return typeof value === 'string' ? [value] : value;
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
      `setting "${problem.key}" in ${source} ${rule}, got ${shownValue(problem.key, flat[problem.key])}`,
    );
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(flat)) {
    const converted = convert(key as keyof Settings, value);
    if (converted !== undefined) out[key] = converted;
  }
  return out as Partial<Settings>;
}

/** A rejected value as the error shows it: never a Jupyter token, nor a URL's credentials. */
function shownValue(key: string, value: unknown): string {
  if (key === 'jupyter.token') return `a ${typeof value} (not shown)`;
  if (key === 'jupyter.url' && typeof value === 'string') return JSON.stringify(redactUrl(value));
  return JSON.stringify(value);
}

/** The most a config file may hold: it is a few settings, not data. */
const CONFIG_MAX_BYTES = 1 << 20;

/** What kind of file `st` is, for a message. */
function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The config file's text: a regular file of at most CONFIG_MAX_BYTES, checked on the open file
 * (opened without blocking, so a FIFO cannot hang the start), without a UTF-8 BOM. Undefined when
 * there is no file.
 */
function readConfigText(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SettingsError(`cannot read the config file ${path}: ${(err as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new SettingsError(`the config file ${path} is ${fileKind(st)}, not a JSON file`);
    if (st.size > CONFIG_MAX_BYTES)
      throw new SettingsError(
        `the config file ${path} is larger than ${CONFIG_MAX_BYTES / 1024} KiB: it cannot be a settings file`,
      );
    const buffer = Buffer.alloc(CONFIG_MAX_BYTES + 1);
    let length = 0;
    for (let n = 1; n > 0 && length < buffer.length; length += n)
      n = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > CONFIG_MAX_BYTES)
      throw new SettingsError(
        `the config file ${path} grew past ${CONFIG_MAX_BYTES / 1024} KiB while it was read`,
      );
    return buffer.toString('utf8', 0, length).replace(/^\uFEFF/, '');
  } catch (err) {
    if (err instanceof SettingsError) throw err;
    throw new SettingsError(`cannot read the config file ${path}: ${(err as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

/** Reads the config file; a missing file is no settings, an unreadable or invalid one is an error. */
export function readConfigFile(path: string): Partial<Settings> {
  const text = readConfigText(path);
  if (text === undefined) return {};
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
  const roots = [...(file['sandbox.writableRoots'] ?? []), ...(fromFlags['sandbox.writableRoots'] ?? [])];
  settings['sandbox.writableRoots'] = [...new Set(roots)];
  const reads = [...(file['sandbox.allowRead'] ?? []), ...(fromFlags['sandbox.allowRead'] ?? [])];
  if (reads.length) settings['sandbox.allowRead'] = [...new Set(reads)];
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
