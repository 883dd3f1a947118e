/**
 * The environment a kernel runs with. Filtered (agents' faces, and the engine's default): host
 * variables on the spec's allowlist, minus anything that looks like a credential. Unfiltered (the
 * faces a person drives: envFilter.ts): the whole environment, as IPython's, except that a
 * sandboxed kernel still gets no credential-looking variable.
 */
import { delimiter } from 'node:path';
import { PERF_OFF_VAR } from '../perfOff.js';
import type { ResolvedPython } from './python.js';

/** Variables passed through as they are (the spec's allowlist). */
const ENV_ALLOWLIST: ReadonlySet<string> = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'COLUMNS',
  'LINES',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'TEMP',
  'TMP',
  'DISPLAY',
  'VIRTUAL_ENV',
  'CONDA_PREFIX',
  'CONDA_DEFAULT_ENV',
  'PYTHONPATH',
  'PYTHONHOME',
  'PYTHONDONTWRITEBYTECODE',
  'PYTHONWARNINGS',
  'PYTHONUTF8',
  'PYTHONHASHSEED',
  'MPLBACKEND',
  'MPLCONFIGDIR',
  'LD_LIBRARY_PATH',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  // Windows essentials
  'SYSTEMROOT',
  'SystemRoot',
  'COMSPEC',
  'PATHEXT',
  'WINDIR',
  'APPDATA',
  'LOCALAPPDATA',
  'USERPROFILE',
  // The engine's own switches (the kernel reads the trace switch); no other PI_* name.
  'PI_PY',
  'PI_JS',
  'PI_PYTHON_IPC_TRACE',
]);

const ENV_ALLOW_PREFIXES: readonly string[] = ['LC_', 'XDG_'];

/**
 * Names that look like credentials (the spec's denylist of API keys: OPENAI_API_KEY,
 * ANTHROPIC_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY... and every other name of their
 * kinds): dropped even when allowed by name or prefix, unless passed explicitly.
 */
export function looksLikeCredential(name: string): boolean {
  const upper = name.toUpperCase();
  return (
    upper.endsWith('_API_KEY') ||
    upper.includes('_SECRET') ||
    upper.endsWith('_TOKEN') ||
    upper.includes('PASSWORD')
  );
}

/**
 * Values that carry a credential whatever their name: a URL with a user (and password) in it,
 * `HTTPS_PROXY=http://user:pass@proxy:3128`, and tokens of well-known shapes (GitHub, OpenAI,
 * Slack, AWS access key ids, GitLab).
 */
const CREDENTIAL_VALUE =
  /[a-z][a-z0-9+.-]*:\/\/[^\s/@]+@|\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|sk-[\w-]{20,}|xox[abprs]-[\w-]{10,}|AKIA[0-9A-Z]{16}|glpat-[\w-]{20,})/i;

export function valueLooksLikeCredential(value: string): boolean {
  return CREDENTIAL_VALUE.test(value);
}

/**
 * The environment a kernel starts with: allowlisted host variables (minus credentials), plus
 * the names in `pass`, which the user asked for explicitly.
 */
export function filterEnv(host: NodeJS.ProcessEnv, pass: readonly string[] = []): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(host)) {
    if (value === undefined) continue;
    if (pass.includes(key)) {
      env[key] = value;
      continue;
    }
    if (looksLikeCredential(key) || valueLooksLikeCredential(value)) continue;
    if (ENV_ALLOWLIST.has(key) || ENV_ALLOW_PREFIXES.some((p) => key.startsWith(p))) env[key] = value;
  }
  return env;
}

/** How a kernel's environment is made from the host's. */
export interface EnvChoice {
  /** Host variables passed although the filter (or the sandbox) would drop them. */
  pass?: readonly string[];
  /** The spec's filter (default true); false passes the whole environment. */
  filter?: boolean;
  /** The kernel runs sandboxed: with the filter off, credential-looking variables still stay out. */
  sandboxed?: boolean;
}

/**
 * The host's environment as a kernel gets it: filtered (filterEnv), or whole; whole but sandboxed,
 * without the variables whose name or value looks like a credential (the sandbox hides the
 * user's credentials, in files and in variables alike), except those passed by name.
 */
export function hostEnvFor(host: NodeJS.ProcessEnv, choice: EnvChoice = {}): Record<string, string> {
  const env = hostVariables(host, choice);
  // Whatever the filter: the kernels' own speed tricks are switched in them (runner.py's imports
  // while it waits, pump.cjs's batching).
  const perf = process.env[PERF_OFF_VAR];
  if (perf) env[PERF_OFF_VAR] = perf;
  return env;
}

function hostVariables(host: NodeJS.ProcessEnv, choice: EnvChoice): Record<string, string> {
  const pass = choice.pass ?? [];
  if (choice.filter ?? true) return filterEnv(host, pass);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(host)) {
    if (value === undefined) continue;
    const secret = looksLikeCredential(key) || valueLooksLikeCredential(value);
    if (choice.sandboxed && secret && !pass.includes(key)) continue;
    env[key] = value;
  }
  return env;
}

/** Adds what every kernel needs on top of the host's environment (filtered or not: `choice`). */
export function kernelEnv(
  host: NodeJS.ProcessEnv,
  python: ResolvedPython,
  choice: EnvChoice = {},
): Record<string, string> {
  const env = hostEnvFor(host, choice);
  if (python.binDir) env.PATH = env.PATH ? `${python.binDir}${delimiter}${env.PATH}` : python.binDir;
  env.PYTHONUNBUFFERED = '1';
  env.PYTHONIOENCODING = 'utf-8';
  env.MPLBACKEND ??= 'Agg';
  return env;
}
