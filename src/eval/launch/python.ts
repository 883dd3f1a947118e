/**
 * Which Python a kernel runs: the candidates in the spec's order, each probed (its real
 * executable and version) before it is chosen.
 */
import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { which } from '../process/which.js';
import { findBwrap } from '../sandbox/bwrap.js';
import { within } from '../sandbox/places.js';
import { SANDBOX_OFF, type SandboxSettings } from '../sandbox/settings.js';
import { filterEnv } from './env.js';
import { probeSandbox, runGuarded } from './guardedRun.js';
import { cachedProbe, type Probe, storeProbe } from './probeCache.js';
import { pyenvTarget } from './pyenv.js';

export { which };

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
const PROBE_TIMEOUT_MS = 10_000;
const probes = new Map<string, Promise<Probe>>();
/** How long this process believes a failed probe. */
const FAILED_PROBE_MS = 60_000;

/** Runs the interpreter once to learn its real executable and version. */
async function probeOnce(
  path: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  sandbox: SandboxSettings | undefined,
): Promise<Probe> {
  const result = await runGuarded(path, ['-c', PROBE], {
    env,
    timeoutMs,
    what: `the probe (${path} -c '…')`,
    ...(sandbox ? { sandbox: probeSandbox(sandbox) } : {}),
  });
  if (result.failed) {
    // (Its own words; execa's message would show the gate's shell command instead.)
    const detail = result.stderr.trim().split('\n').slice(-3).join(' ');
    throw new Error(
      detail ||
        `it exited with ${result.exitCode === undefined ? 'an error' : `code ${result.exitCode}`} and said nothing: is it a Python 3.8+ interpreter?`,
    );
  }
  const stdout = result.stdout;
  const [executable = '', versionText = ''] = stdout.trim().split('\n');
  const version = versionText.split('.').map(Number) as [number, number, number];
  if (version.length !== 3 || version.some(Number.isNaN)) {
    throw new Error(`unexpected probe output: ${stdout.trim().slice(0, 200)}`);
  }
  return { executable: executable || path, version };
}

/**
 * Probes an interpreter: once per process, and across processes through the probe cache (so a
 * version manager's shim is not run at every start).
 */
async function probePython(
  path: string,
  env: NodeJS.ProcessEnv,
  cwd = process.cwd(),
  timeoutMs = PROBE_TIMEOUT_MS,
  sandbox?: SandboxSettings,
): Promise<Probe> {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path);
  } catch {
    throw new Error('does not exist');
  }
  const key = `${path}\0${st.mtimeMs}\0${st.ino}\0${sandbox ? 'boxed' : 'host'}`;
  let probe = probes.get(key);
  if (!probe) {
    const cached = cachedProbe(path, env, cwd);
    probe = cached ? Promise.resolve(cached) : probeOnce(path, filterEnv(env), timeoutMs, sandbox);
    probes.set(key, probe);
    // A failure is believed for a while (a command asked two or three times, and each probe of a
    // hung interpreter took its 10 s); then the interpreter is probed again. (Not across runs: a
    // probe that timed out on a loaded machine would fail the runs after it.)
    probe.then(
      (result) => cached || storeProbe(path, env, cwd, result),
      () => setTimeout(() => probes.delete(key), FAILED_PROBE_MS).unref(),
    );
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
  /** How long one probe may run (default 10 s). */
  probeTimeoutMs?: number;
  /**
   * The kernels' sandbox: with it on, every candidate is probed inside it. Without it, a
   * discovered candidate in the working directory (`.venv`, `venv`: anything may have written
   * it) is still probed in a read-only sandbox where bubblewrap can make one (`setup python
   * --check`); one the user named is probed as the kernel will run it.
   */
  sandbox?: SandboxSettings;
}

/** Where `candidate` is probed: in a sandbox (its settings), or on the host (undefined). */
function probeBox(candidate: PythonCandidate, opts: ResolveOptions): SandboxSettings | undefined {
  if (opts.sandbox && opts.sandbox.mode !== 'off') return opts.sandbox;
  if (opts.interpreter) return undefined; // the user named it, for kernels that run unsandboxed
  if (process.platform !== 'linux' || !within(realOf(candidate.path), realOf(opts.cwd))) return undefined;
  return findBwrap(opts.env ?? process.env) ? { ...SANDBOX_OFF, mode: 'read-only' } : undefined;
}

function realOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
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
    // A discovered pyenv shim is seen through: the interpreter it would run is probed instead
    // (pyenv's bash runs ~240 processes before Python starts). Probed where the shim would be.
    const shim = opts.interpreter ? undefined : pyenvTarget(candidate.path, env, opts.cwd, opts.home);
    const source = shim
      ? `${candidate.source} through pyenv's shim: version ${shim.version} (set by ${shim.origin})`
      : candidate.source;
    const box =
      probeBox(candidate, opts) ?? (shim && probeBox({ ...candidate, path: shim.executable }, opts));
    try {
      const probe = await probePython(
        shim?.executable ?? candidate.path,
        env,
        opts.cwd,
        opts.probeTimeoutMs,
        box,
      );
      // A discovered interpreter is spawned as its own sys.executable, which skips version-manager
      // shims (pyenv, asdf) on every start; an explicit one is spawned exactly as given.
      return {
        ...candidate,
        ...probe,
        source,
        executable: opts.interpreter ? candidate.path : probe.executable,
        tried,
      };
    } catch (err) {
      const what = shim ? `${candidate.path} → ${shim.executable}` : candidate.path;
      tried.push({ candidate: `${what} (${source})`, reason: (err as Error).message });
    }
  }
  const list = tried.map((t) => `  - ${t.candidate}: ${t.reason}`).join('\n');
  const message = opts.interpreter
    ? `The Python interpreter ${opts.interpreter} cannot be used:\n${list}`
    : `No usable Python 3.8+ interpreter was found. Tried:\n${list}\n` +
      'Install Python 3.8 or newer, activate a virtualenv, or pass --python PATH.';
  throw new PythonNotFoundError(message, tried);
}
