/**
 * What a kernel runs with: the filtered environment and the resolved Python interpreter.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

/** Variables passed through as they are (the spec's allowlist). */
export const ENV_ALLOWLIST: ReadonlySet<string> = new Set([
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
]);

export const ENV_ALLOW_PREFIXES: readonly string[] = ['LC_', 'XDG_', 'PI_'];

/** Credentials that never reach a kernel, even through an allowed prefix. */
export const ENV_DENYLIST: ReadonlySet<string> = new Set([
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GROQ_API_KEY',
  'MISTRAL_API_KEY',
  'XAI_API_KEY',
  'OPENROUTER_API_KEY',
  'DEEPSEEK_API_KEY',
  'AZURE_OPENAI_API_KEY',
  'COHERE_API_KEY',
  'PERPLEXITY_API_KEY',
  'TOGETHER_API_KEY',
  'FIREWORKS_API_KEY',
  'CEREBRAS_API_KEY',
  'HF_TOKEN',
  'HUGGING_FACE_HUB_TOKEN',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'GITHUB_TOKEN',
  'GH_TOKEN',
]);

/** Names that look like credentials: dropped even when allowed, unless passed explicitly. */
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
    if (ENV_DENYLIST.has(key) || looksLikeCredential(key)) continue;
    if (ENV_ALLOWLIST.has(key) || ENV_ALLOW_PREFIXES.some((p) => key.startsWith(p))) env[key] = value;
  }
  return env;
}

/** Adds what every kernel needs on top of the filtered environment. */
export function kernelEnv(
  host: NodeJS.ProcessEnv,
  python: ResolvedPython,
  pass: readonly string[] = [],
): Record<string, string> {
  const env = filterEnv(host, pass);
  if (python.binDir) env.PATH = env.PATH ? `${python.binDir}${delimiter}${env.PATH}` : python.binDir;
  env.PYTHONUNBUFFERED = '1';
  env.PYTHONIOENCODING = 'utf-8';
  env.MPLBACKEND ??= 'Agg';
  return env;
}

export interface PythonCandidate {
  /** Where the candidate came from, e.g. `VIRTUAL_ENV` or `PATH (python3)`. */
  source: string;
  path: string;
  /** The venv's bin directory, prepended to PATH when this candidate is chosen. */
  binDir?: string;
}

export interface ResolvedPython extends PythonCandidate {
  /** The interpreter that is spawned. */
  executable: string;
  version: [number, number, number];
  /** Candidates tried before this one, and why each was skipped. */
  tried: Rejected[];
}

export interface Rejected {
  candidate: string;
  reason: string;
}

export class PythonNotFoundError extends Error {
  constructor(
    message: string,
    readonly tried: Rejected[],
  ) {
    super(message);
    this.name = 'PythonNotFoundError';
  }
}

const isWindows = process.platform === 'win32';

function venvPython(root: string): { path: string; binDir: string } {
  const binDir = join(root, isWindows ? 'Scripts' : 'bin');
  return { path: join(binDir, isWindows ? 'python.exe' : 'python'), binDir };
}

/** Finds `name` on a PATH string, as a shell would. */
export function which(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (!dir) continue;
    const full = join(dir, isWindows && !name.endsWith('.exe') ? `${name}.exe` : name);
    try {
      if (statSync(full).isFile()) {
        accessSync(full, constants.X_OK);
        return full;
      }
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The candidates in the spec's order, before probing. */
export function pythonCandidates(opts: {
  env: NodeJS.ProcessEnv;
  cwd: string;
  home?: string;
}): PythonCandidate[] {
  const { env, cwd } = opts;
  const out: PythonCandidate[] = [];
  const venv = (source: string, root: string | undefined) => {
    if (root) out.push({ source, ...venvPython(root) });
  };
  venv('VIRTUAL_ENV', env.VIRTUAL_ENV);
  venv('CONDA_PREFIX', env.CONDA_PREFIX);
  venv('.venv in the working directory', join(cwd, '.venv'));
  venv('venv in the working directory', join(cwd, 'venv'));
  venv('managed venv ~/.omp/python-env', join(opts.home ?? homedir(), '.omp', 'python-env'));
  for (const name of ['python', 'python3']) {
    const found = which(name, env.PATH);
    out.push({ source: `PATH (${name})`, path: found ?? name });
  }
  return out;
}

const PROBE = 'import sys; print(sys.executable); print("%d.%d.%d" % sys.version_info[:3])';
const probeCache = new Map<string, Promise<{ executable: string; version: [number, number, number] }>>();

function probeOnce(path: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ executable: string; version: [number, number, number] }>((resolve, reject) => {
    execFile(path, ['-c', PROBE], { env, timeout: 10_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) {
        const detail = (stderr || err.message).trim().split('\n').slice(-3).join(' ');
        reject(new Error(detail || String(err)));
        return;
      }
      const [executable = '', versionText = ''] = stdout.trim().split('\n');
      const version = versionText.split('.').map(Number) as [number, number, number];
      if (version.length !== 3 || version.some(Number.isNaN)) {
        reject(new Error(`unexpected probe output: ${stdout.trim().slice(0, 200)}`));
        return;
      }
      resolve({ executable: executable || path, version });
    });
  });
}

/** Probes an interpreter (cached per path and modification time for this process). */
export async function probePython(path: string, env: NodeJS.ProcessEnv) {
  let key = path;
  try {
    const st = statSync(path);
    key = `${path}\0${st.mtimeMs}\0${st.ino}`;
  } catch {
    throw new Error('does not exist');
  }
  let probe = probeCache.get(key);
  if (!probe) {
    probe = probeOnce(path, filterEnv(env));
    probeCache.set(key, probe);
    probe.catch(() => probeCache.delete(key));
  }
  const result = await probe;
  const [major, minor] = result.version;
  if (major < 3 || (major === 3 && minor < 8)) {
    throw new Error(`Python ${result.version.join('.')} is older than 3.8`);
  }
  return result;
}

export interface ResolveOptions {
  /** An explicit interpreter skips discovery. */
  interpreter?: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
}

/** Resolves the interpreter in the spec's order; each failing candidate is skipped with its reason. */
export async function resolvePython(opts: ResolveOptions): Promise<ResolvedPython> {
  const env = opts.env ?? process.env;
  const tried: Rejected[] = [];
  const candidates: PythonCandidate[] = opts.interpreter
    ? [
        {
          source: 'explicit interpreter',
          path: opts.interpreter.includes('/')
            ? opts.interpreter
            : (which(opts.interpreter, env.PATH) ?? opts.interpreter),
        },
      ]
    : pythonCandidates({ env, cwd: opts.cwd, home: opts.home });
  const seen = new Set<string>();
  for (const candidate of candidates) {
    if (seen.has(candidate.path)) continue;
    seen.add(candidate.path);
    try {
      const probe = await probePython(candidate.path, env);
      // A discovered interpreter is spawned as its own sys.executable, which skips version-manager
      // shims (pyenv, asdf) on every start; an explicit one is spawned exactly as given.
      return {
        ...candidate,
        ...probe,
        executable: opts.interpreter ? candidate.path : probe.executable,
        tried,
      };
    } catch (err) {
      tried.push({ candidate: `${candidate.path} (${candidate.source})`, reason: (err as Error).message });
    }
  }
  const list = tried.map((t) => `  - ${t.candidate}: ${t.reason}`).join('\n');
  const message = opts.interpreter
    ? `The Python interpreter ${opts.interpreter} cannot be used:\n${list}`
    : `No usable Python 3.8+ interpreter was found. Tried:\n${list}\n` +
      'Install Python 3.8 or newer, activate a virtualenv, or pass --python PATH.';
  throw new PythonNotFoundError(message, tried);
}
