/**
 * runner.py is written once per content hash into a private cache under the OS temp directory
 * and reused by later spawns, but only after its content is checked.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const RUNNER_SOURCE_URL = new URL('../py/runner.py', import.meta.url);
export const PRELUDE_SOURCE_URL = new URL('../py/prelude.py', import.meta.url);

let runnerSource: string | undefined;
let preludeSource: string | undefined;

export function getRunnerSource(): string {
  runnerSource ??= readFileSync(RUNNER_SOURCE_URL, 'utf8');
  return runnerSource;
}

export function getPreludeSource(): string {
  preludeSource ??= readFileSync(PRELUDE_SOURCE_URL, 'utf8');
  return preludeSource;
}

const uid = () => (typeof process.getuid === 'function' ? process.getuid() : -1);

/** True when `dir` is a real directory owned by us that nobody else can write to. */
function isPrivateDir(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    if (!st.isDirectory()) return false;
    if (process.platform === 'win32') return true;
    return st.uid === uid() && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

let cacheDir: string | undefined;

/** `<tmp>/omp-python-runner` (per user), or a fresh private directory if that one is not safe. */
export function runnerCacheDir(base = tmpdir()): string {
  if (cacheDir && isPrivateDir(cacheDir)) return cacheDir;
  const preferred = join(base, uid() >= 0 ? `omp-python-runner-${uid()}` : 'omp-python-runner');
  try {
    mkdirSync(preferred, { mode: 0o700 });
  } catch {
    // exists already: checked below
  }
  cacheDir = isPrivateDir(preferred) ? preferred : mkdtempSync(join(base, 'omp-python-runner-'));
  return cacheDir;
}

/** Writes `source` as `runner-<hash>.py` (atomically, mode 0600) unless an identical file is there. */
export function ensureRunnerFile(source = getRunnerSource(), dir = runnerCacheDir()): string {
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const file = join(dir, `runner-${hash}.py`);
  try {
    const st = lstatSync(file);
    if (
      st.isFile() &&
      (process.platform === 'win32' || st.uid === uid()) &&
      readFileSync(file, 'utf8') === source
    ) {
      return file;
    }
  } catch {
    // missing: write it
  }
  const tmp = join(dir, `.runner-${hash}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, source);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  return file;
}
