/**
 * Interpreter probes kept across runs, so that `omp-eval run` and `tool` do not run a version
 * manager's shim (pyenv's is a shell script, ~0.2 s) at every start. An entry is used only while
 * everything that decides which Python the path runs is unchanged: the file at the path, the
 * variables version managers and venvs read, the version files they read (`.python-version`,
 * `.tool-versions` from the working directory up, pyenv's global `version`), and the real
 * executable the probe found. Anything else changed: the interpreter is probed again.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type writeFileAtomic from 'write-file-atomic';
import { perfOff } from '../perfOff.js';
import { pyenvRoot } from './pyenv.js';
import { runnerCacheDir } from './runnerFile.js';

export interface Probe {
  executable: string;
  version: [number, number, number];
}

interface Entry extends Probe {
  /** The real executable's identity when it was probed. */
  stamp: string;
  at: number;
}

const ENV_KEYS = [
  'PATH',
  'PYENV_VERSION',
  'PYENV_ROOT',
  'ASDF_PYTHON_VERSION',
  'VIRTUAL_ENV',
  'CONDA_PREFIX',
  'PYTHONHOME',
];
const VERSION_FILES = ['.python-version', '.tool-versions'];
const MAX_ENTRIES = 64;
const require = createRequire(import.meta.url);

/** mtime, inode and size of a file, or `-` when there is none. */
function stamp(path: string): string {
  try {
    const st = statSync(path);
    return `${st.mtimeMs}:${st.ino}:${st.size}`;
  } catch {
    return '-';
  }
}

/** Everything that decides which interpreter `path` runs, hashed. */
function keyOf(path: string, env: NodeJS.ProcessEnv, cwd: string): string {
  const hash = createHash('sha256').update(path).update('\0').update(stamp(path));
  for (const name of ENV_KEYS) hash.update(`\0${name}=${env[name] ?? ''}`);
  for (let dir = cwd; ; dir = dirname(dir)) {
    for (const name of VERSION_FILES) hash.update(`\0${stamp(join(dir, name))}`);
    if (dirname(dir) === dir) break;
  }
  hash.update(`\0${stamp(join(pyenvRoot(env), 'version'))}`);
  return hash.digest('hex');
}

const cacheFile = () => join(runnerCacheDir(), 'probes.json');

function readCache(): Record<string, Entry> {
  try {
    const parsed = JSON.parse(readFileSync(cacheFile(), 'utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

const isProbe = (e: unknown): e is Entry => {
  const v = e as Entry | undefined;
  return (
    typeof v?.executable === 'string' &&
    typeof v.stamp === 'string' &&
    Array.isArray(v.version) &&
    v.version.length === 3 &&
    v.version.every(Number.isInteger)
  );
};

/** The probe of `path` from an earlier run, if nothing it depends on has changed since. */
export function cachedProbe(path: string, env: NodeJS.ProcessEnv, cwd: string): Probe | undefined {
  if (env.OMP_EVAL_NO_PROBE_CACHE === '1' || perfOff('probe-cache', env)) return undefined;
  const entry = readCache()[keyOf(path, env, cwd)];
  if (!isProbe(entry) || stamp(entry.executable) !== entry.stamp) return undefined;
  return { executable: entry.executable, version: entry.version };
}

/** Keeps a probe for later runs (best effort: a cache that cannot be written is no cache). */
export function storeProbe(path: string, env: NodeJS.ProcessEnv, cwd: string, probe: Probe): void {
  if (env.OMP_EVAL_NO_PROBE_CACHE === '1' || perfOff('probe-cache', env)) return;
  try {
    const entries = Object.entries(readCache()).filter(([, e]) => isProbe(e));
    entries.push([keyOf(path, env, cwd), { ...probe, stamp: stamp(probe.executable), at: Date.now() }]);
    const kept = entries.sort(([, a], [, b]) => a.at - b.at).slice(-MAX_ENTRIES);
    const atomic = require('write-file-atomic') as typeof writeFileAtomic;
    atomic.sync(cacheFile(), JSON.stringify(Object.fromEntries(kept)), { mode: 0o600, fsync: false });
  } catch {
    // no cache this time
  }
}
